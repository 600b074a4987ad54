"""Observation (sensor) models: what an observer sees when the agent acts (book §2, F11).

An observer's sensor model is a deterministic, many-to-one function ``O(a, s')`` from the
action taken and the state it produced to a *token*. Everything an observer later infers
(beliefs, belief plan sets, the goals it still considers) follows from this function, so it
is given declaratively, one small JSON file per domain and observer, and compiled once
against a grounded :class:`~xaip.planning.task.Task`.

File format (all keys but ``rules`` optional)::

    {
      "observer": "port supervisor",
      "rules": [
        {"actions": ["load", "acquire"],
         "if": ["(at-port ?c)", "(new ?c)"],
         "token": ["action", {"count": "at-port"}]},
        {"token": ["action", {"facts": "at-port"}]}
      ]
    }

Rules are tried in order; the first whose ``actions`` (schema names, ``"*"`` or absent for
all) contain the action's schema and whose state conditions hold in the *resulting* state
gives the token. An action that no rule matches is observed as the empty token ``()``
("nothing seen"), so a rule list can also describe silent actions.

* ``"if"`` / ``"unless"``: a list of atom patterns that must all hold together (``if``) or
  must not all hold together (``unless``) for one assignment of their ``?x`` variables.
  ``?0``, ``?1``, ... name the action's arguments. Static facts count as true.
* ``"token"``: a list of parts, each one of
  ``"action"`` (the schema name), ``"name"`` (the full ground action name),
  ``{"arg": i}`` (the i-th argument, from 0), ``{"facts": P}`` (the sorted true facts of
  predicate ``P``, or of a pattern such as ``"(at ?0 ?x)"``), ``{"values": "(label ?0 ?1 ?l)"}``
  (the sorted values of the pattern's free variables over the matching facts: what is
  seen *about* those facts, e.g. an edge's label without its ends), ``{"count": P}`` (how many),
  ``{"holds": "(at ?0 home)"}`` (true/false), ``{"const": "moved"}`` (a fixed word), or
  ``{"hook": "NAME"}`` (a Python function ``f(action, atoms) -> str | int | bool``;
  ``NAME`` is a key of the ``hooks`` mapping given to :func:`load_observation_model`, or
  ``package.module:function``).

A file may instead hold several observers, ``{"observers": {"X": {...}, "C": {...}}}``,
each optionally with ``"role": "adversary" | "friend" | "observer"``
(:func:`load_observers`). For anything the format cannot say, build an
:class:`ObservationModel` from a Python function with :meth:`ObservationModel.from_function`.

API::

    model = load_observation_model("port-observer.json", task)       # one observer
    token = model.observe(action, state)                              # O(a, s')
    tokens = model.tokens(plan)                                       # along a plan
    format_token(token)                                               # "load|blue,green"

The model also evaluates its rules on plain sets of atoms
(:meth:`ObservationModel.observe_atoms`) with separate code, which the independent checker
uses (:mod:`xaip.observers.check`).
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xaip import sidefiles
from xaip.errors import InputError
from xaip.planning.task import GroundAction, State, Task, bits

TokenPart = str | int | bool | tuple[str, ...]
Token = tuple[TokenPart, ...]
#: A token hook: the ground action and the resulting state's true atoms (as ``(p a b)``
#: strings, static facts included) to one JSON-safe token part.
Hook = Callable[[GroundAction, frozenset[str]], Any]
ROLES = ("observer", "adversary", "friend")
#: A state as facts grouped by predicate: predicate -> argument tuples.
FactMap = Mapping[str, list[tuple[str, ...]]]

_PART_KINDS = ("arg", "facts", "values", "count", "holds", "const", "hook")


def format_token(token: Token) -> str:
    """A token as one short string: parts joined by ``|``, fact lists by ``,``."""
    if not token:
        return "-"
    out = []
    for part in token:
        if isinstance(part, tuple):
            out.append(",".join(part) if part else "{}")
        elif isinstance(part, bool):
            out.append("yes" if part else "no")
        else:
            out.append(str(part))
    return "|".join(out)


def tokens_text(tokens: Sequence[str]) -> str:
    """Formatted tokens as one line for people: separated by spaces, each in brackets when
    some token holds a space (a ground action name), so token boundaries stay visible."""
    if any(" " in t for t in tokens):
        return " ".join(f"[{t}]" for t in tokens)
    return " ".join(tokens)


def parse_atom_text(text: str, where: str) -> tuple[str, tuple[str, ...]]:
    """``"(pred a ?x)"`` as ``("pred", ("a", "?x"))`` (lower case); InputError otherwise."""
    if not isinstance(text, str):
        raise InputError(f"{where}: expected an atom such as \"(at ?0 home)\", got {text!r}")
    body = text.strip()
    if not (body.startswith("(") and body.endswith(")")):
        raise InputError(f"{where}: expected an atom such as \"(at ?0 home)\", got {text!r}")
    words = body[1:-1].lower().split()
    if not words or any(c in w for w in words for c in "()"):
        raise InputError(f"{where}: malformed atom {text!r}")
    return words[0], tuple(words[1:])


# --------------------------------------------------------------------- declarative spec


@dataclass(frozen=True)
class Pattern:
    """An atom pattern: constants, ``?0``.. (action arguments) and ``?x`` (free variables)."""

    predicate: str
    args: tuple[str, ...]

    def __str__(self) -> str:
        return "(" + " ".join((self.predicate, *self.args)) + ")"


@dataclass(frozen=True)
class Part:
    """One token part: ``kind`` is action, name, arg, facts, count, holds, const or hook."""

    kind: str
    arg: int = 0
    pattern: Pattern | None = None
    text: str = ""


@dataclass(frozen=True)
class Rule:
    """First matching rule gives the token; ``actions`` ``None`` means every action."""

    actions: frozenset[str] | None
    when: tuple[Pattern, ...]
    unless: tuple[Pattern, ...]
    parts: tuple[Part, ...]


@dataclass(frozen=True)
class ObservationSpec:
    """A parsed observation file (not yet tied to a task)."""

    observer: str
    role: str
    rules: tuple[Rule, ...]
    source: str = "<observations>"


def _arg_ref(word: str) -> int | None:
    return int(word[1:]) if word.startswith("?") and word[1:].isdigit() else None


def _pattern(text: Any, where: str) -> Pattern:
    predicate, args = parse_atom_text(text, where)
    return Pattern(predicate, args)


def _predicate_or_pattern(value: Any, where: str) -> Pattern:
    if isinstance(value, str) and not value.strip().startswith("("):
        return Pattern(value.strip().lower(), ())  # () = any arguments
    return _pattern(value, where)


def _part(raw: Any, where: str) -> Part:
    if raw in ("action", "name"):
        return Part(str(raw))
    if not isinstance(raw, dict) or len(raw) != 1:
        raise InputError(f"{where}: a token part is \"action\", \"name\" or one of "
                         f"{{{', '.join(_PART_KINDS)}: ...}}, got {json.dumps(raw)}")
    (kind, value), = raw.items()
    if kind == "arg":
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise InputError(f"{where}: \"arg\" needs an argument index 0, 1, ..., got {value!r}")
        return Part("arg", arg=value)
    if kind in ("facts", "count"):
        return Part(kind, pattern=_predicate_or_pattern(value, where))
    if kind == "values":
        pattern = _pattern(value, where)
        if not any(w.startswith("?") and _arg_ref(w) is None for w in pattern.args):
            raise InputError(f"{where}: \"values\" needs a pattern with a free variable "
                             f"such as ?x, got {value!r}")
        return Part(kind, pattern=pattern)
    if kind == "holds":
        return Part(kind, pattern=_pattern(value, where))
    if kind in ("const", "hook"):
        if not isinstance(value, str) or not value:
            raise InputError(f"{where}: \"{kind}\" needs a non-empty string")
        return Part(kind, text=value)
    raise InputError(f"{where}: unknown token part '{kind}' (one of action, name, "
                     f"{', '.join(_PART_KINDS)})")


def _patterns(raw: Any, where: str) -> tuple[Pattern, ...]:
    if raw is None:
        return ()
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list):
        raise InputError(f"{where}: expected a list of atoms")
    return tuple(_pattern(item, where) for item in raw)


def parse_spec(data: Any, source: str = "<observations>",
               name: str = "observer") -> ObservationSpec:
    """Check the structure of one observer's JSON object (its names are checked against a
    task by :func:`compile_model`)."""
    if not isinstance(data, dict):
        raise InputError(f"{source}: an observation model is a JSON object with \"rules\"")
    unknown = set(data) - {"observer", "role", "rules", "description"}
    if unknown:
        raise InputError(f"{source}: unknown key(s) {', '.join(sorted(unknown))} "
                         "(expected observer, role, rules, description)")
    role = str(data.get("role", "observer")).lower()
    if role not in ROLES:
        raise InputError(f"{source}: role '{role}' is not one of {', '.join(ROLES)}")
    rules_raw = data.get("rules")
    if not isinstance(rules_raw, list) or not rules_raw:
        raise InputError(f"{source}: \"rules\" must be a non-empty list")
    rules = []
    for i, raw in enumerate(rules_raw):
        where = f"{source}: rule {i + 1}"
        if not isinstance(raw, dict):
            raise InputError(f"{where}: a rule is a JSON object with \"token\"")
        extra = set(raw) - {"actions", "if", "unless", "token", "description"}
        if extra:
            raise InputError(f"{where}: unknown key(s) {', '.join(sorted(extra))}")
        actions_raw = raw.get("actions", "*")
        if isinstance(actions_raw, str):
            actions_raw = [actions_raw]
        if not isinstance(actions_raw, list) or not all(isinstance(a, str) for a in actions_raw):
            raise InputError(f"{where}: \"actions\" is a schema name or a list of them")
        actions = None if "*" in actions_raw else frozenset(a.lower() for a in actions_raw)
        token_raw = raw.get("token")
        if not isinstance(token_raw, list):
            raise InputError(f"{where}: \"token\" must be a list of parts")
        rules.append(Rule(actions, _patterns(raw.get("if"), where),
                          _patterns(raw.get("unless"), where),
                          tuple(_part(p, where) for p in token_raw)))
    return ObservationSpec(str(data.get("observer", name)), role, tuple(rules), source)


# ------------------------------------------------------------------------- the model


def _schemas(task: Task, domain: Any | None) -> dict[str, int | None]:
    """Schema name -> arity (``None`` if unknown) from the domain, else the ground task."""
    if domain is not None:
        return {a.name.lower(): len(a.parameters) for a in domain.actions}
    return {a.schema.lower(): len(a.args) for a in task.actions}


def _predicates(task: Task, domain: Any | None) -> set[str]:
    names = {f.predicate.lower() for f in task.facts}
    names |= {f.predicate.lower() for f in task.static_facts}
    if domain is not None:
        names |= {p.name.lower() for p in domain.predicates}
    return names


def _check_names(spec: ObservationSpec, task: Task, domain: Any | None,
                 hooks: Mapping[str, Hook]) -> dict[str, Hook]:
    schemas = _schemas(task, domain)
    predicates = _predicates(task, domain)
    resolved: dict[str, Hook] = {}

    def check_pattern(pattern: Pattern, where: str, arity: int | None) -> None:
        if pattern.predicate not in predicates:
            raise InputError(f"{where}: unknown predicate '{pattern.predicate}' "
                             f"(known: {', '.join(sorted(predicates)) or 'none'})")
        for word in pattern.args:
            ref = _arg_ref(word)
            if ref is not None and arity is not None and ref >= arity:
                raise InputError(f"{where}: {pattern} refers to argument ?{ref} but the "
                                 f"action has {arity} argument(s)")

    for i, rule in enumerate(spec.rules):
        where = f"{spec.source}: rule {i + 1}"
        for name in sorted(rule.actions or ()):
            if name not in schemas:
                raise InputError(f"{where}: unknown action '{name}' "
                                 f"(known: {', '.join(sorted(schemas))})")
        arities = [schemas[n] for n in (rule.actions or ())]
        arity = min((a for a in arities if a is not None), default=None)
        for pattern in (*rule.when, *rule.unless):
            check_pattern(pattern, where, arity)
        for part in rule.parts:
            if part.pattern is not None:
                check_pattern(part.pattern, where, arity)
            if part.kind == "arg" and arity is not None and part.arg >= arity:
                raise InputError(f"{where}: argument {part.arg} does not exist "
                                 f"(the action(s) take {arity})")
            if part.kind == "arg" and rule.actions is None:
                raise InputError(f"{where}: an \"arg\" part needs the rule's \"actions\"")
            if part.kind == "hook" and part.text not in resolved:
                resolved[part.text] = _resolve_hook(part.text, hooks, where)
    return resolved


def _resolve_hook(name: str, hooks: Mapping[str, Hook], where: str) -> Hook:
    if name in hooks:
        return hooks[name]
    if ":" not in name:
        raise InputError(f"{where}: unknown hook '{name}' (give it in hooks= or as "
                         "package.module:function)")
    module_name, _, attr = name.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise InputError(f"{where}: cannot import hook module '{module_name}': {exc}") from None
    fn = getattr(module, attr, None)
    if not callable(fn):
        raise InputError(f"{where}: '{name}' is not a function")
    return fn


def _hashable(value: Any, where: str) -> TokenPart:
    if isinstance(value, str | int | bool):
        return value
    if isinstance(value, list | tuple | set | frozenset) and all(isinstance(v, str) for v in value):
        return tuple(sorted(value)) if isinstance(value, set | frozenset) else tuple(value)
    raise InputError(f"{where}: a hook must return a string, number, boolean or list of "
                     f"strings, got {value!r}")


def _match(patterns: Sequence[Pattern], args: tuple[str, ...], facts: FactMap,
           binding: dict[str, str]) -> Iterator[dict[str, str]]:
    """All bindings of the free variables under which every pattern is among ``facts``."""
    if not patterns:
        yield binding
        return
    first, rest = patterns[0], patterns[1:]
    for candidate in facts.get(first.predicate, ()):
        if first.args and len(candidate) != len(first.args):
            continue
        extended = dict(binding)
        ok = True
        for word, value in zip(first.args, candidate, strict=False):
            ref = _arg_ref(word)
            if ref is not None:
                ok = ref < len(args) and args[ref] == value
            elif word.startswith("?"):
                ok = extended.setdefault(word, value) == value
            else:
                ok = word == value
            if not ok:
                break
        if ok:
            yield from _match(rest, args, facts, extended)


def _facts_by_predicate(atoms: Iterable[tuple[str, tuple[str, ...]]]
                        ) -> dict[str, list[tuple[str, ...]]]:
    out: dict[str, list[tuple[str, ...]]] = {}
    for predicate, args in atoms:
        out.setdefault(predicate, []).append(args)
    return out


def _atom_text(predicate: str, args: tuple[str, ...]) -> str:
    return "(" + " ".join((predicate, *args)) + ")"


@dataclass
class ObservationModel:
    """One observer's sensor model compiled against ``task`` (cached per action and state).

    ``observe(action, state)`` is ``O(a, s')`` for the bitset state ``s'`` reached by
    ``action``; ``observe_atoms`` is the same function evaluated by separate code on a set
    of atoms (used by the checker). ``function`` replaces the rules entirely when the model
    came from :meth:`from_function`.
    """

    task: Task
    spec: ObservationSpec
    hooks: Mapping[str, Hook] = field(default_factory=dict)
    function: Callable[[GroundAction, State], Any] | None = None
    _cache: dict[tuple[int, State], Token] = field(default_factory=dict, repr=False)
    _ids: dict[int, int] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._ids = {id(a): i for i, a in enumerate(self.task.actions)}
        statics = [(f.predicate.lower(), tuple(a.lower() for a in f.args))
                   for f in self.task.static_facts]
        self._static = _facts_by_predicate(statics)
        self._fluent = [(f.predicate.lower(), tuple(a.lower() for a in f.args))
                        for f in self.task.facts]

    @property
    def name(self) -> str:
        return self.spec.observer

    @property
    def role(self) -> str:
        return self.spec.role

    @classmethod
    def from_function(cls, task: Task, function: Callable[[GroundAction, State], Any],
                      observer: str = "observer", role: str = "observer") -> ObservationModel:
        """A model given entirely by ``function(action, state) -> token part(s)``."""
        spec = ObservationSpec(observer, role, (), "<function>")
        return cls(task, spec, function=function)

    def observe(self, action: GroundAction, state: State) -> Token:
        """The token ``O(action, state)``; ``state`` is the state ``action`` produced."""
        key = (self._ids.get(id(action), -1), state)
        token = self._cache.get(key) if key[0] >= 0 else None
        if token is None:
            token = self._evaluate(action, state)
            if key[0] >= 0:
                self._cache[key] = token
        return token

    def tokens(self, plan: Sequence[GroundAction], start: State | None = None) -> tuple[Token, ...]:
        """The tokens a plan emits from ``start`` (default: the initial state)."""
        state = self.task.init if start is None else start
        out = []
        for action in plan:
            if not action.applicable(state):
                raise ValueError(f"{action} is not applicable")
            state = action.apply(state)
            out.append(self.observe(action, state))
        return tuple(out)

    def _atoms_of(self, state: State) -> dict[str, list[tuple[str, ...]]]:
        facts = {p: list(v) for p, v in self._static.items()}
        for i in bits(state):
            predicate, args = self._fluent[i]
            facts.setdefault(predicate, []).append(args)
        return facts

    def _evaluate(self, action: GroundAction, state: State) -> Token:
        if self.function is not None:
            value = self.function(action, state)
            parts = value if isinstance(value, tuple) else (value,)
            return tuple(_hashable(p, "observation function") for p in parts)
        return self._evaluate_facts(action, self._atoms_of(state))

    def observe_atoms(self, schema: str, args: Sequence[str], atoms: Iterable[str]) -> Token:
        """``O(a, s')`` for an action given by name and a state given as atom strings.

        Static facts are added here. Separate from :meth:`observe` on purpose: the checker
        evaluates tokens on states it progressed itself, without the bitset encoding.
        """
        if self.function is not None:
            raise InputError("a function observation model has no atom-level form")
        parsed = {parse_atom_text(a, "state") for a in atoms}
        parsed |= {(p, v) for p, values in self._static.items() for v in values}
        facts = _facts_by_predicate(sorted(parsed))
        fake = GroundAction(schema.lower(), tuple(a.lower() for a in args), 0, 0, 0)
        return self._evaluate_facts(fake, facts)

    def _evaluate_facts(self, action: GroundAction, facts: FactMap) -> Token:
        args = tuple(a.lower() for a in action.args)
        schema = action.schema.lower()
        for rule in self.spec.rules:
            if rule.actions is not None and schema not in rule.actions:
                continue
            if rule.when and next(_match(rule.when, args, facts, {}), None) is None:
                continue
            if rule.unless and next(_match(rule.unless, args, facts, {}), None) is not None:
                continue
            return tuple(self._part(part, action, args, facts) for part in rule.parts)
        return ()

    def _part(self, part: Part, action: GroundAction, args: tuple[str, ...],
              facts: FactMap) -> TokenPart:
        kind = part.kind
        if kind == "action":
            return action.schema.lower()
        if kind == "name":
            return " ".join((action.schema.lower(), *args))
        if kind == "arg":
            return args[part.arg] if part.arg < len(args) else ""
        if kind == "const":
            return part.text
        if kind == "hook":
            atoms = frozenset(_atom_text(p, a) for p, vs in facts.items() for a in vs)
            try:
                value = self.hooks[part.text](action, atoms)
            except Exception as exc:  # the user's code: its failure is bad input, not ours
                raise InputError(f"hook {part.text} failed on ({action.name}): "
                                 f"{type(exc).__name__}: {exc}") from None
            return _hashable(value, f"hook {part.text}")
        assert part.pattern is not None
        pattern = part.pattern
        if kind == "holds":
            return next(_match((pattern,), args, facts, {}), None) is not None
        if kind == "values":
            free = [i for i, w in enumerate(pattern.args)
                    if w.startswith("?") and _arg_ref(w) is None]
            return tuple(sorted({" ".join(values[i] for i in free)
                                 for values in facts.get(pattern.predicate, ())
                                 if _fits(pattern, values, args)}))
        if pattern.args:
            matched = sorted(" ".join(values) for values in facts.get(pattern.predicate, ())
                             if _fits(pattern, values, args))
        else:
            matched = sorted(" ".join(values) for values in facts.get(pattern.predicate, ()))
        return len(matched) if kind == "count" else tuple(matched)


def _fits(pattern: Pattern, values: tuple[str, ...], args: tuple[str, ...]) -> bool:
    """Whether ``values`` instantiate ``pattern`` (constants equal, ``?i`` = argument i)."""
    if len(values) != len(pattern.args):
        return False
    binding: dict[str, str] = {}
    for word, value in zip(pattern.args, values, strict=True):
        ref = _arg_ref(word)
        if ref is not None:
            if ref >= len(args) or args[ref] != value:
                return False
        elif word.startswith("?"):
            if binding.setdefault(word, value) != value:
                return False
        elif word != value:
            return False
    return True


def compile_model(spec: ObservationSpec, task: Task, domain: Any | None = None,
                  hooks: Mapping[str, Hook] | None = None) -> ObservationModel:
    """Tie ``spec`` to ``task``: unknown actions, predicates, argument indices and hooks are
    :class:`~xaip.errors.InputError`\\ s naming the file and rule."""
    resolved = _check_names(spec, task, domain, dict(hooks or {}))
    return ObservationModel(task, spec, resolved)


def read_json(path: str | Path) -> Any:
    """One observer-family input file (observations, goals) as JSON; an unreadable file,
    non-UTF-8 text or bad JSON is one InputError line naming the file."""
    return sidefiles.read_json(path, "observations")  # limits, devices, FIFOs, NaN


def load_observers(path: str | Path, task: Task, domain: Any | None = None,
                   hooks: Mapping[str, Hook] | None = None) -> dict[str, ObservationModel]:
    """Every observer of an observation file, by name (one entry for a one-observer file)."""
    return observers_from_data(read_json(path), task, str(path), domain, hooks)


def observers_from_data(data: Any, task: Task, source: str = "<observations>",
                        domain: Any | None = None,
                        hooks: Mapping[str, Hook] | None = None) -> dict[str, ObservationModel]:
    """:func:`load_observers` for already-parsed JSON."""
    if isinstance(data, dict) and "observers" in data:
        group = data["observers"]
        if not isinstance(group, dict) or not group:
            raise InputError(f"{source}: \"observers\" must map observer names to models")
        return {name: compile_model(parse_spec(body, f"{source} [{name}]", name), task,
                                    domain, hooks)
                for name, body in group.items()}
    spec = parse_spec(data, source)
    return {spec.observer: compile_model(spec, task, domain, hooks)}


def load_observation_model(path: str | Path, task: Task, domain: Any | None = None,
                           hooks: Mapping[str, Hook] | None = None,
                           observer: str | None = None) -> ObservationModel:
    """The observation model in ``path`` compiled for ``task``.

    ``domain`` (the lifted domain, optional) lets rules name predicates that have no ground
    fact in this problem. A file with several observers needs ``observer`` unless it holds
    exactly one.
    """
    models = load_observers(path, task, domain, hooks)
    if observer is None:
        if len(models) != 1:
            raise InputError(f"{path}: holds observers {', '.join(models)}; name one")
        return next(iter(models.values()))
    if observer not in models:
        raise InputError(f"{path}: no observer '{observer}' (has {', '.join(models)})")
    return models[observer]
