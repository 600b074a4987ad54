"""The foil language: what a person asks the plan to do instead, one constraint a line.

Why a language of its own: a foil ("why not pick up b2 first?") is rarely one action; people
ask for orders ("use A before B"), prohibitions ("never C after D") and partial plans
("sequence A B C"). Each line is one constraint on the plan's action sequence::

    use (pick-up b1)                      ; some step is this action
    use (pick-up b1) before (stack b1 b2) ; some step A, and a later step B
    (pick-up b1) then (stack b1 b2)       ; the same
    never (put-down ?x) after (unstack b1 b2) ; no step C after a step D
    avoid (unstack ?x b3)                 ; no step is this action
    sequence (unstack b1 b2) (put-down b1) (pick-up b2) ; these, in order; others may interleave

An action is ``(name arg ...)`` as in a plan file; an argument ``?var`` matches any object
(a variable repeated inside one action must take one object; variables are not shared
between the actions of a line). ``;`` and ``#`` start comments. Errors name ``file:line:column``.

:func:`parse_foils` reads the text against a domain and problem; the meaning of each kind
lives in :mod:`xaip.foils.interpret` (the checker's interpreter) and, compiled into monitor
facts, in :mod:`xaip.foils.compile`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from xaip.errors import InputError
from xaip.planning.pddl.model import Domain, Problem

#: The kinds of constraint, by their JSON name.
KINDS = ("use", "before", "sequence", "never_after", "avoid")
#: At most this many constraints in one foil file: conflict analysis looks at subsets.
MAX_CONSTRAINTS = 16


@dataclass(frozen=True)
class Pattern:
    """An action with optional ``?variables``: ``schema`` and ``args`` as in a plan step."""

    schema: str
    args: tuple[str, ...]

    def matches(self, schema: str, args: tuple[str, ...]) -> bool:
        """Does the ground action ``(schema *args)`` match? Variables bind consistently."""
        if schema != self.schema or len(args) != len(self.args):
            return False
        binding: dict[str, str] = {}
        for mine, theirs in zip(self.args, args, strict=True):
            if mine.startswith("?"):
                if binding.setdefault(mine, theirs) != theirs:
                    return False
            elif mine != theirs:
                return False
        return True

    def __str__(self) -> str:
        return "(" + " ".join((self.schema, *self.args)) + ")"


@dataclass(frozen=True)
class Constraint:
    """One line of a foil file. ``patterns`` are in the plan's time order: for ``use`` one,
    ``before`` (A, B), ``sequence`` (A1, ..., An), ``never_after`` (D, C) meaning no C after
    a D, ``avoid`` one. ``text`` is the line as written, ``line`` its 1-based number."""

    kind: str
    patterns: tuple[Pattern, ...]
    text: str
    line: int = 0

    def to_dict(self) -> dict[str, object]:
        return {"kind": self.kind, "actions": [str(p) for p in self.patterns],
                "text": self.text, "line": self.line}


def _tokens(line: str, file: str, number: int) -> Iterator[tuple[str, int]]:
    """Words and parenthesised actions of ``line`` with their 1-based columns."""
    i = 0
    while i < len(line):
        char = line[i]
        if char in ";#":
            return
        if char.isspace():
            i += 1
            continue
        if char == "(":
            end = line.find(")", i)
            inner = line.find("(", i + 1)
            if end < 0 or 0 <= inner < end:
                raise InputError(f"{file}:{number}:{i + 1}: an action must be one "
                                 "'(name arg ...)' closed by ')'")
            yield line[i:end + 1], i + 1
            i = end + 1
            continue
        if char == ")":
            raise InputError(f"{file}:{number}:{i + 1}: ')' without '('")
        start = i
        while i < len(line) and not line[i].isspace() and line[i] not in "();#":
            i += 1
        yield line[start:i], start + 1


class _Reader:
    """Checks action names, arities and objects against the task while parsing."""

    def __init__(self, domain: Domain, problem: Problem, file: str) -> None:
        self.arity = {a.name.lower(): len(a.parameters) for a in domain.actions}
        self.objects = {o.name.lower() for o in (*domain.constants, *problem.objects)}
        self.file = file

    def pattern(self, token: str, number: int, column: int) -> Pattern:
        where = f"{self.file}:{number}:{column}"
        if not token.startswith("("):
            raise InputError(f"{where}: expected an action '(name arg ...)', got '{token}'")
        words = token[1:-1].lower().split()
        if not words:
            raise InputError(f"{where}: empty action '()'")
        schema, args = words[0], tuple(words[1:])
        if schema not in self.arity:
            raise InputError(f"{where}: the domain has no action '{schema}'")
        if len(args) != self.arity[schema]:
            raise InputError(f"{where}: '{schema}' takes {self.arity[schema]} argument(s), "
                             f"got {len(args)}")
        for arg in args:
            if arg.startswith("?"):
                if len(arg) == 1:
                    raise InputError(f"{where}: '?' needs a variable name")
            elif arg not in self.objects:
                raise InputError(f"{where}: no object '{arg}' in the problem or domain")
        return Pattern(schema, args)


def _shape(words: list[tuple[str, int]]) -> tuple[str, list[tuple[str, int]]]:
    """The kind of a line and its action tokens, or ``""`` when no form fits."""
    keys = [w.lower() if not w.startswith("(") else "(" for w, _ in words]
    acts = [w for w in words if w[0].startswith("(")]
    if keys == ["use", "("]:
        return "use", acts
    if keys == ["avoid", "("]:
        return "avoid", acts
    if keys in (["use", "(", "before", "("], ["(", "then", "("]):
        return "before", acts
    if keys == ["never", "(", "after", "("]:
        return "never_after", [acts[1], acts[0]]
    if len(keys) >= 2 and keys[0] == "sequence" and all(k == "(" for k in keys[1:]):
        return "sequence", acts
    return "", acts


FORMS = ("use A", "use A before B", "A then B", "never C after D", "avoid A",
         "sequence A B ...")


def parse_foils(text: str, domain: Domain, problem: Problem,
                file: str = "<foils>") -> tuple[Constraint, ...]:
    """The constraints of a foil file; :class:`~xaip.errors.InputError` at ``file:line:col``
    on anything else (unknown form, action, object, wrong arity, a variable shared between
    two actions of one line, more than :data:`MAX_CONSTRAINTS` lines, an empty file)."""
    reader = _Reader(domain, problem, file)
    out: list[Constraint] = []
    for number, raw in enumerate(text.splitlines(), 1):
        words = list(_tokens(raw, file, number))
        if not words:
            continue
        kind, acts = _shape(words)
        if not kind:
            raise InputError(f"{file}:{number}:{words[0][1]}: not a constraint; write one "
                             f"of: {', '.join(FORMS)} (actions as '(name arg ...)')")
        patterns = tuple(reader.pattern(token, number, column) for token, column in acts)
        _no_shared_variables(patterns, acts, file, number)
        cut = min((raw.find(c) for c in ";#" if c in raw), default=len(raw))
        out.append(Constraint(kind, patterns, " ".join(raw[:cut].split()), number))
    if not out:
        raise InputError(f"{file}: no constraints (write one per line: {', '.join(FORMS)})")
    if len(out) > MAX_CONSTRAINTS:
        raise InputError(f"{file}:{out[MAX_CONSTRAINTS].line}:1: at most {MAX_CONSTRAINTS} "
                         "constraints in one foil file")
    return tuple(out)


def _no_shared_variables(patterns: tuple[Pattern, ...], acts: list[tuple[str, int]],
                         file: str, number: int) -> None:
    seen: set[str] = set()
    for pattern, (_, column) in zip(patterns, acts, strict=True):
        mine = {a for a in pattern.args if a.startswith("?")}
        shared = sorted(mine & seen)
        if shared:
            raise InputError(f"{file}:{number}:{column}: variable {shared[0]} is used by two "
                             "actions of one constraint; name the object instead (each "
                             "action's variables are its own)")
        seen |= mine
