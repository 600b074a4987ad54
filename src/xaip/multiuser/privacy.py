"""The privacy map: which model features each user may be told (MA-RADAR, book §10.2.2).

Why a map of its own: several decision makers share one robot, but some of what the robot
knows is private to one of them (a police chief's car numbers) or simply not for another
(a transport chief has no business with engine deployments). An explanation to a user may
only contain edits the map lets that user hear. The map is a JSON object::

    {
      "private": {"police": ["predicate:has_police_car_number"]},
      "users": {
        "transport": {"deny": ["action:deploy_big_engines"]},
        "medic":     {"allow": ["predicate:alerted", "action:alert"]}
      }
    }

A *rule* names features: ``predicate:NAME`` (every feature whose atom uses the predicate),
``action:NAME`` (every precondition, effect and cost of the action schema),
``feature:KIND [ACTION] (ATOM)`` (exactly one feature, written as in an annotation file,
e.g. ``feature:precondition deploy_rescuers (alerted ?from)``; parameters match by
position) or ``*`` (every feature).

User ``u`` may be told feature ``f`` exactly when

1. ``f`` is not private to another user (``private[v]`` for ``v != u`` matches it),
2. no rule of ``users[u].deny`` matches it, and
3. ``users[u]`` has no ``allow`` list, or a rule of it matches ``f``.

Without a map every user may be told everything. Names are checked against the models'
vocabulary, so a typo is one line of bad input rather than a rule that silently matches
nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xaip.errors import InputError
from xaip.planning.features import Feature, FeatureKind
from xaip.planning.pddl.model import Atom, Domain
from xaip.sidefiles import expect, read_json

_KINDS_WITH_ACTION = frozenset({FeatureKind.PRECONDITION, FeatureKind.NEGATIVE_PRECONDITION,
                                FeatureKind.ADD_EFFECT, FeatureKind.DELETE_EFFECT})
_PROBLEM_KINDS = frozenset({FeatureKind.INIT, FeatureKind.GOAL, FeatureKind.NEGATIVE_GOAL})
_FEATURE = re.compile(r"^(?P<kind>[a-z-]+)\s+(?:(?P<action>[^\s()]+)\s+)?"
                      r"\((?P<atom>[^()]*)\)$")


@dataclass(frozen=True)
class Rule:
    """One rule of the map: ``kind`` is ``predicate``, ``action``, ``feature`` or ``all``;
    ``name`` the predicate or action name; ``feature`` the one feature of a feature rule."""

    kind: str
    name: str = ""
    feature: Feature | None = None
    text: str = ""

    def matches(self, feature: Feature) -> bool:
        if self.kind == "all":
            return True
        if self.kind == "predicate":
            return feature.atom is not None and feature.atom.predicate == self.name
        if self.kind == "action":
            return feature.action == self.name
        return feature == self.feature


@dataclass(frozen=True)
class UserRules:
    """What the map says of one user: ``allow`` is ``None`` when the user has no allow list
    (everything not denied is allowed)."""

    allow: tuple[Rule, ...] | None = None
    deny: tuple[Rule, ...] = ()


@dataclass(frozen=True)
class PrivacyMap:
    """The parsed map (module docstring); :meth:`may_tell` is its one question."""

    private: Mapping[str, tuple[Rule, ...]] = field(default_factory=dict)
    users: Mapping[str, UserRules] = field(default_factory=dict)
    source: str = ""

    def may_tell(self, user: str, feature: Feature) -> bool:
        return self.refusal(user, feature) is None

    def refusal(self, user: str, feature: Feature) -> str | None:
        """Why ``user`` may not be told ``feature`` (``None``: they may), in words."""
        for owner, rules in sorted(self.private.items()):
            if owner != user:
                hit = next((r for r in rules if r.matches(feature)), None)
                if hit is not None:
                    return f"private to {owner} ({hit.text})"
        own = self.users.get(user, UserRules())
        hit = next((r for r in own.deny if r.matches(feature)), None)
        if hit is not None:
            return f"denied to {user} ({hit.text})"
        if own.allow is not None and not any(r.matches(feature) for r in own.allow):
            return f"not in {user}'s allow list"
        return None

    def to_dict(self) -> dict[str, Any]:
        return {"private": {u: [r.text for r in rules] for u, rules in self.private.items()},
                "users": {u: {"allow": None if r.allow is None else [x.text for x in r.allow],
                              "deny": [x.text for x in r.deny]}
                          for u, r in self.users.items()}}


#: The map when none is given: everyone may be told everything.
OPEN = PrivacyMap()


def _rule(text: Any, where: str, domains: Iterable[Domain]) -> Rule:
    text = expect(text, str, where).strip()
    domains = tuple(domains)
    predicates = {p.name for d in domains for p in d.predicates}
    actions = {a.name: a for d in domains for a in d.actions}
    if text == "*":
        return Rule("all", text=text)
    head, _, rest = text.partition(":")
    rest = rest.strip()
    if head == "predicate":
        if rest not in predicates:
            raise InputError(f"{where}: no model declares a predicate '{rest}'")
        return Rule("predicate", rest, text=text)
    if head == "action":
        if rest not in actions:
            raise InputError(f"{where}: no model has an action '{rest}'")
        return Rule("action", rest, text=text)
    if head == "feature":
        return Rule("feature", feature=_feature(rest, where, actions, predicates), text=text)
    raise InputError(f"{where}: a rule is 'predicate:NAME', 'action:NAME', "
                     f"'feature:KIND [ACTION] (ATOM)' or '*', not '{text}'")


def _feature(text: str, where: str, actions: Mapping[str, Any], predicates: set[str]
             ) -> Feature:
    match = _FEATURE.match(text)
    if match is None:
        raise InputError(f"{where}: expected 'feature:KIND [ACTION] (ATOM)', found "
                         f"'feature:{text}'")
    try:
        kind = FeatureKind(match["kind"])
    except ValueError:
        raise InputError(f"{where}: unknown feature kind '{match['kind']}'") from None
    words = match["atom"].split()
    if not words or words[0] not in predicates:
        raise InputError(f"{where}: no model declares a predicate "
                         f"'{words[0] if words else ''}'")
    atom = Atom(words[0], tuple(words[1:]))
    if kind in _KINDS_WITH_ACTION:
        name = match["action"]
        if name is None or name not in actions:
            raise InputError(f"{where}: a {kind.value} rule needs an action the models have"
                             + (f" (not '{name}')" if name else ""))
        parameters = tuple(p.name for p in actions[name].parameters)
        return Feature(kind, name, parameters, atom)
    if kind in _PROBLEM_KINDS:
        if match["action"] is not None:
            raise InputError(f"{where}: a {kind.value} rule takes no action name")
        return Feature(kind, atom=atom)
    raise InputError(f"{where}: feature kind '{kind.value}' cannot be named in a rule")


def parse_privacy(data: Any, users: Iterable[str], domains: Iterable[Domain],
                  source: str = "<privacy map>") -> PrivacyMap:
    """The map in ``data`` (parsed JSON) for ``users``, with names checked against
    ``domains`` (the robot's and every user's)."""
    users, domains = tuple(users), tuple(domains)
    data = expect(data, dict, source)
    unknown = sorted(set(data) - {"private", "users"})
    if unknown:
        raise InputError(f"{source}: unknown key '{unknown[0]}' (a map has 'private' and "
                         "'users')")

    def user_name(name: str, where: str) -> str:
        if name not in users:
            raise InputError(f"{where}: '{name}' is not one of the users "
                             f"({', '.join(users)})")
        return name

    def rules(value: Any, where: str) -> tuple[Rule, ...]:
        items = expect(value, list, where)
        return tuple(_rule(item, f"{where}[{i}]", domains) for i, item in enumerate(items))

    private = {user_name(name, f"{source}: 'private'"): rules(value, f"{source}: "
                                                                 f"'private'.'{name}'")
               for name, value in expect(data.get("private", {}), dict,
                                         f"{source}: 'private'").items()}
    per_user: dict[str, UserRules] = {}
    for name, value in expect(data.get("users", {}), dict, f"{source}: 'users'").items():
        where = f"{source}: 'users'.'{user_name(name, f'{source}: ' + repr('users'))}'"
        entry = expect(value, dict, where)
        extra = sorted(set(entry) - {"allow", "deny"})
        if extra:
            raise InputError(f"{where}: unknown key '{extra[0]}' (a user has 'allow' and "
                             "'deny')")
        allow = rules(entry["allow"], f"{where}.'allow'") if "allow" in entry else None
        per_user[name] = UserRules(allow, rules(entry.get("deny", []), f"{where}.'deny'"))
    return PrivacyMap(private, per_user, source)


def read_privacy(path: str | Path, users: Iterable[str], domains: Iterable[Domain]
                 ) -> PrivacyMap:
    """The privacy map in the JSON file ``path`` (limits and errors of
    :func:`xaip.sidefiles.read_json`)."""
    return parse_privacy(read_json(path, "spec"), users, domains, str(path))
