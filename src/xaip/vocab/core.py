"""User vocabularies: predicates with evaluation functions over simulator states.

Why: capability discovery describes what an agent can do in *the user's* terms. The user
names the properties they care about (``at(?ob ?loc)``, ``has_key()``...) and says how to
read each one off a simulator state; xaip never looks inside states otherwise. Object types
are unary predicates too (``cell(?x)``, ``monster(?x)``), as in the paper: each object has
exactly one type, and types take part in abstract states like any other predicate.

Two ways to declare a predicate (both give a :class:`Predicate`):

- ``@predicate("object", "cell")`` on ``fn(state) -> iterable of argument tuples`` — the set
  of true ground atoms; fastest, and natural when the state lists where things are. A
  nullary predicate may return a ``bool``, a unary one plain object names.
- ``@predicate_test("cell")`` on ``fn(state, obj1, ...) -> bool`` — a test that xaip calls
  for every tuple of objects of the parameter types; simplest for relations between objects.

Types are declared with ``@object_type()`` on ``fn(state) -> iterable of object names``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from xaip.errors import InputError
from xaip.planning.pddl.model import Atom, TypedName
from xaip.planning.pddl.model import Predicate as PddlPredicate

#: The parameter type that accepts an object of any type.
ANY = "object"

Style = Literal["set", "test", "type"]


class VocabularyError(InputError):
    """A vocabulary is malformed, or one of its predicates failed on a state."""


@dataclass(frozen=True)
class Predicate:
    """A predicate of the user's vocabulary.

    ``parameters`` are type names (``"object"`` accepts any object). ``function`` is read
    according to ``style``: ``"set"`` — ``function(state)`` gives the true argument tuples;
    ``"test"`` — ``function(state, *objects)`` says whether one ground atom holds;
    ``"type"`` — a unary type predicate, ``function(state)`` gives the objects of the type.
    """

    name: str
    parameters: tuple[str, ...]
    function: Callable[..., Any] = field(compare=False, repr=False)
    style: Style = "set"
    description: str = ""

    def __post_init__(self) -> None:
        if not self.name or not self.name.replace("_", "").replace("-", "").isalnum():
            raise VocabularyError(
                f"predicate name '{self.name}' must be letters, digits, '_' or '-'"
            )
        if self.style == "type" and self.parameters != (self.name,):
            raise VocabularyError(f"type predicate '{self.name}' must have itself as parameter")

    @property
    def arity(self) -> int:
        return len(self.parameters)

    @property
    def is_type(self) -> bool:
        return self.style == "type"


def predicate(
    *parameters: str, name: str | None = None, description: str = ""
) -> Callable[[Callable[[Any], Any]], Predicate]:
    """Declare a predicate from ``fn(state)`` returning its true argument tuples.

    ``parameters`` are the parameter types; the name defaults to the function's name.
    """

    def wrap(fn: Callable[[Any], Any]) -> Predicate:
        return Predicate(
            name or fn.__name__, tuple(parameters), fn, "set", description or (fn.__doc__ or "")
        )

    return wrap


def predicate_test(
    *parameters: str, name: str | None = None, description: str = ""
) -> Callable[[Callable[..., bool]], Predicate]:
    """Declare a predicate from a test ``fn(state, *objects) -> bool``."""

    def wrap(fn: Callable[..., bool]) -> Predicate:
        return Predicate(
            name or fn.__name__, tuple(parameters), fn, "test", description or (fn.__doc__ or "")
        )

    return wrap


def object_type(
    name: str | None = None, description: str = ""
) -> Callable[[Callable[[Any], Iterable[str]]], Predicate]:
    """Declare an object type from ``fn(state)`` returning the objects of that type."""

    def wrap(fn: Callable[[Any], Iterable[str]]) -> Predicate:
        type_name = name or fn.__name__
        return Predicate(type_name, (type_name,), fn, "type", description or (fn.__doc__ or ""))

    return wrap


def _describe(state: Any) -> str:
    text = repr(state)
    return text if len(text) <= 300 else text[:297] + "..."


class Vocabulary:
    """A set of predicates plus the object types (unary predicates) they range over.

    ``abstract`` turns a simulator state into the set of true ground atoms. Results are
    checked (arity, known objects, parameter types) unless ``check=False``: a predicate
    that raises or returns nonsense is reported with its name and the state.
    """

    def __init__(
        self,
        predicates: Iterable[Predicate],
        types: Iterable[Predicate],
        *,
        name: str = "",
        check: bool = True,
    ) -> None:
        self.name = name
        self.check = check
        self.types: tuple[Predicate, ...] = tuple(types)
        self.predicates: tuple[Predicate, ...] = tuple(predicates)
        seen: set[str] = set()
        for p in (*self.types, *self.predicates):
            if p.name in seen:
                raise VocabularyError(f"the vocabulary declares '{p.name}' twice")
            seen.add(p.name)
        for t in self.types:
            if not t.is_type:
                raise VocabularyError(f"'{t.name}' is listed as a type but is not a type predicate")
        type_names = {t.name for t in self.types}
        for p in self.predicates:
            if p.is_type:
                raise VocabularyError(f"type predicate '{p.name}' belongs in types")
            for param in p.parameters:
                if param != ANY and param not in type_names:
                    raise VocabularyError(
                        f"predicate '{p.name}' has parameter type '{param}', which is not a "
                        f"declared type ({', '.join(sorted(type_names)) or 'none'})"
                    )
        self._by_name = {p.name: p for p in (*self.types, *self.predicates)}
        self._atoms: dict[tuple[str, tuple[str, ...]], Atom] = {}

    # ----------------------------------------------------------------- lookups

    def __getitem__(self, name: str) -> Predicate:
        try:
            return self._by_name[name]
        except KeyError:
            raise VocabularyError(f"the vocabulary has no predicate '{name}'") from None

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __iter__(self) -> Any:
        return iter((*self.types, *self.predicates))

    def __len__(self) -> int:
        return len(self.types) + len(self.predicates)

    def extend(self, *predicates: Predicate, types: Sequence[Predicate] = ()) -> Vocabulary:
        """A new vocabulary with more predicates (and types)."""
        return Vocabulary(
            (*self.predicates, *predicates),
            (*self.types, *types),
            name=self.name,
            check=self.check,
        )

    def pddl_predicates(self, *, include_types: bool = True) -> tuple[PddlPredicate, ...]:
        """PDDL declarations ``(name ?x1 - type ...)`` of the vocabulary's predicates."""
        out = []
        for p in (*self.types, *self.predicates) if include_types else self.predicates:
            params = tuple(
                TypedName(f"?x{i + 1}", ANY if p.is_type else t) for i, t in enumerate(p.parameters)
            )
            out.append(PddlPredicate(p.name, params))
        return tuple(out)

    # ----------------------------------------------------------------- evaluation

    def atom(self, name: str, args: tuple[str, ...] = ()) -> Atom:
        """The (shared) ``Atom`` for ``(name args...)``."""
        key = (name, args)
        found = self._atoms.get(key)
        if found is None:
            found = self._atoms[key] = Atom(name, args)
        return found

    def objects(self, state: Any) -> dict[str, str]:
        """Every object of ``state`` with its type (each object must have exactly one)."""
        typed: dict[str, str] = {}
        for t in self.types:
            for obj in self._call(t, state):
                if not isinstance(obj, str):
                    raise VocabularyError(
                        f"type '{t.name}' returned {obj!r}, not an object name, "
                        f"on state {_describe(state)}"
                    )
                other = typed.get(obj)
                if other is not None and other != t.name:
                    raise VocabularyError(
                        f"object '{obj}' has two types, '{other}' and '{t.name}', "
                        f"on state {_describe(state)}"
                    )
                typed[obj] = t.name
        return typed

    def true_args(
        self, pred: Predicate, state: Any, objects: Mapping[str, str] | None = None
    ) -> frozenset[tuple[str, ...]]:
        """The argument tuples for which ``pred`` holds in ``state``."""
        typed = self.objects(state) if objects is None else objects
        if pred.is_type:
            return frozenset((o,) for o, t in typed.items() if t == pred.name)
        if pred.style == "test":
            return self._tested(pred, state, typed)
        result = self._call(pred, state)
        args = self._normalise(pred, result, state)
        if self.check:
            self._validate(pred, args, typed, state)
        return args

    def abstract(self, state: Any, *, include_types: bool = True) -> frozenset[Atom]:
        """The abstract state: every true ground atom of the vocabulary in ``state``."""
        typed = self.objects(state)
        atom = self.atom
        out: list[Atom] = []
        if include_types:
            out.extend(atom(t, (o,)) for o, t in typed.items())
        for p in self.predicates:
            name = p.name
            out.extend(atom(name, args) for args in self.true_args(p, state, typed))
        return frozenset(out)

    def holds(self, state: Any, atom: Atom) -> bool:
        """Whether one ground atom holds in ``state``."""
        pred = self[atom.predicate]
        return tuple(atom.args) in self.true_args(pred, state)

    def ground_atoms(self, objects: Mapping[str, str], *, include_types: bool = True) -> list[Atom]:
        """Every type-correct ground atom over ``objects`` (object -> type), sorted."""
        by_type: dict[str, list[str]] = {}
        for obj, t in objects.items():
            by_type.setdefault(t, []).append(obj)
        everything = sorted(objects)
        out: list[Atom] = []
        if include_types:
            out.extend(self.atom(t, (o,)) for o, t in objects.items())
        for p in self.predicates:
            pools = [everything if t == ANY else sorted(by_type.get(t, [])) for t in p.parameters]
            out.extend(self.atom(p.name, tuple(args)) for args in itertools.product(*pools))
        return sorted(out, key=lambda a: (a.predicate, a.args))

    # ----------------------------------------------------------------- internals

    @staticmethod
    def _call(pred: Predicate, state: Any, *args: str) -> Any:
        try:
            return pred.function(state, *args)
        except VocabularyError:
            raise
        except Exception as exc:  # noqa: BLE001 - any failure of user code is reported
            where = f"({pred.name} {' '.join(args)})" if args else f"'{pred.name}'"
            raise VocabularyError(
                f"predicate {where} raised {type(exc).__name__}: {exc} on state {_describe(state)}"
            ) from exc

    @staticmethod
    def _normalise(pred: Predicate, result: Any, state: Any) -> frozenset[tuple[str, ...]]:
        if isinstance(result, bool):
            if pred.arity != 0:
                raise VocabularyError(
                    f"predicate '{pred.name}' has {pred.arity} parameters but returned a bool "
                    f"on state {_describe(state)}"
                )
            return frozenset({()}) if result else frozenset()
        try:
            items = list(result)
        except TypeError:
            raise VocabularyError(
                f"predicate '{pred.name}' returned {result!r}, not a collection of argument "
                f"tuples, on state {_describe(state)}"
            ) from None
        if pred.arity == 1:
            return frozenset((x,) if isinstance(x, str) else tuple(x) for x in items)
        return frozenset(tuple(x) for x in items)

    def _validate(
        self,
        pred: Predicate,
        args: frozenset[tuple[str, ...]],
        typed: Mapping[str, str],
        state: Any,
    ) -> None:
        params = pred.parameters
        for tup in args:
            if len(tup) != len(params):
                raise VocabularyError(
                    f"predicate '{pred.name}' returned {tup!r} with {len(tup)} arguments, "
                    f"expected {len(params)}, on state {_describe(state)}"
                )
            for obj, want in zip(tup, params, strict=True):
                have = typed.get(obj)
                if have is None:
                    raise VocabularyError(
                        f"predicate '{pred.name}' returned unknown object '{obj}' "
                        f"on state {_describe(state)}"
                    )
                if want != ANY and have != want:
                    raise VocabularyError(
                        f"predicate '{pred.name}' returned '{obj}' of type '{have}' where "
                        f"'{want}' is expected, on state {_describe(state)}"
                    )

    def _tested(
        self, pred: Predicate, state: Any, typed: Mapping[str, str]
    ) -> frozenset[tuple[str, ...]]:
        pools = [
            sorted(typed) if t == ANY else sorted(o for o, ot in typed.items() if ot == t)
            for t in pred.parameters
        ]
        out = []
        for args in itertools.product(*pools):
            value = self._call(pred, state, *args)
            if not isinstance(value, bool):
                raise VocabularyError(
                    f"predicate test ({pred.name} {' '.join(args)}) returned {value!r}, "
                    f"not a bool, on state {_describe(state)}"
                )
            if value:
                out.append(args)
        return frozenset(out)


def abstract(vocabulary: Vocabulary, state: Any, *, include_types: bool = True) -> frozenset[Atom]:
    """The abstract state of ``state`` in ``vocabulary``: its true ground atoms."""
    return vocabulary.abstract(state, include_types=include_types)
