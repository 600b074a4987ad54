"""Environment files: a stock Gymnasium environment and the user's concepts, as JSON.

Why data and not code: a user who wants "why not my route?" on FrozenLake should write down
the concepts they think in ("a hole is to the right") and run ``xaip why-not`` /
``xaip discover`` on the file, with no lambdas. One file serves both explainers::

    {"env": "FrozenLake-v1", "make": {"is_slippery": false},
     "seed": 0,                                # the reset seed (default 0)
     "goal": "tile == G",                      # which ended episodes are successes
     "cost": "steps",                          # or "negated-reward" (default "steps")
     "noop": null,                             # the action allowed to change nothing
     "negations": true,                        # add not-X for every concept (default)
     "concepts": {
        "hole-right": {"when": "tile-right == H", "description": "a hole is to the right"},
        "top-row": "row == 0",                 # a bare condition
        "near-edge": {"any": ["row == 0", "col == 0"]}},
     "plan": ["down", "down", "right"],        # why-not's default plan and foil
     "foil": ["right", "down"]}

A condition is ``FEATURE OP VALUE`` with OP one of ``== != < <= > >=``, or ``FEATURE in
[V1, V2]`` / ``not in``; ``when`` takes one condition or a list that must all hold, ``any``
a list of which one must. The features are the environment's (:mod:`xaip.gymnasium.features`);
a misspelt feature, an impossible value or an unknown key is one line of bad input.

Why-not gets every concept and, with ``negations``, its negation ``not-X`` (the missing
precondition of a failing action is often a negative fact). Discovery gets the concepts as
nullary predicates; it needs no negations, since a capability's preconditions and effects
already say "X is false" with a negative literal.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xaip import sidefiles
from xaip.errors import InputError
from xaip.gymnasium.adapter import GymAdapter, GymState, state_key
from xaip.gymnasium.features import FeatureSet, Value, features_of

KEYS = frozenset({"env", "make", "seed", "goal", "cost", "noop", "negations", "concepts",
                  "plan", "foil", "actions", "restore", "description"})
COSTS = ("steps", "negated-reward")
_CONDITION = re.compile(r"^\s*([A-Za-z][\w-]*)\s*(==|!=|<=|>=|<|>|not\s+in|in)\s*(.+?)\s*$")
Test = Callable[[GymState], bool]


@dataclass(frozen=True)
class ConceptDef:
    """A concept of the file: its name, its test on states and its description."""

    name: str
    test: Test
    description: str


@dataclass(frozen=True)
class EnvFile:
    """A loaded environment file: the adapter on the environment it names, the concepts,
    the goal test, the cost rule, the no-op and the default plan and foil."""

    source: str
    env_id: str
    adapter: GymAdapter
    features: FeatureSet
    concepts: tuple[ConceptDef, ...]
    negations: bool
    goal: Test
    cost: str
    noop: str | None
    plan: tuple[str, ...] | None
    foil: tuple[str, ...] | None
    description: str = ""


def _value(text: str) -> Value:
    text = text.strip().strip("'\"")
    return int(text) if re.fullmatch(r"-?\d+", text) else text


def parse_condition(text: Any, features: FeatureSet, where: str) -> Test:
    """``FEATURE OP VALUE`` as a test on states (bad input names ``where``)."""
    if not isinstance(text, str):
        raise InputError(f"{where}: a condition is a string like 'row == 0', not {text!r}"[:200])
    match = _CONDITION.match(text)
    if match is None:
        raise InputError(f"{where}: cannot read condition {text!r}; write FEATURE OP VALUE "
                         "(OP: == != < <= > >= in, not in)"[:300])
    name, op, raw = match.group(1), " ".join(match.group(2).split()), match.group(3)
    read = features.reader(name)
    known = features.values.get(name)
    if op in ("in", "not in"):
        if not (raw.startswith("[") and raw.endswith("]")):
            raise InputError(f"{where}: '{op}' takes a list like [H, G], not {raw!r}"[:200])
        values = tuple(_value(v) for v in raw[1:-1].split(",") if v.strip())
    else:
        values = (_value(raw),)
    for value in values:
        if known is not None and value not in known:
            shown = ", ".join(str(v) for v in known[:12]) + (" ..." if len(known) > 12 else "")
            raise InputError(f"{where}: {value!r} is not a value of {name} (values: {shown})")
        if op in ("<", "<=", ">", ">=") and not isinstance(value, int):
            raise InputError(f"{where}: '{op}' compares numbers; {value!r} is not one")
    wanted = values[0]

    def key_of(state: GymState) -> Hashable:
        return state_key(state)

    tests: dict[str, Callable[[Value], bool]] = {
        "==": lambda v: v == wanted, "!=": lambda v: v != wanted,
        "<": lambda v: isinstance(v, int) and v < wanted,  # type: ignore[operator]
        "<=": lambda v: isinstance(v, int) and v <= wanted,  # type: ignore[operator]
        ">": lambda v: isinstance(v, int) and v > wanted,  # type: ignore[operator]
        ">=": lambda v: isinstance(v, int) and v >= wanted,  # type: ignore[operator]
        "in": lambda v: v in values, "not in": lambda v: v not in values,
    }
    compare = tests[op]
    return lambda state: compare(read(key_of(state)))


def _concept(name: Any, spec: Any, features: FeatureSet, source: str) -> ConceptDef:
    where = f"{source}: concept {name!r}"
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z][\w-]*", name):
        raise InputError(f"{source}: a concept name is letters, digits, '-' or '_', not "
                         f"{name!r}"[:200])
    if name.startswith("not-"):
        raise InputError(f"{where}: names starting with 'not-' are the generated negations")
    if isinstance(spec, str):
        spec = {"when": spec}
    if not isinstance(spec, dict) or not spec or set(spec) - {"when", "any", "description"}:
        raise InputError(f"{where}: a concept is a condition string or an object with "
                         "'when', 'any' and 'description'")
    description = spec.get("description", "")
    if not isinstance(description, str):
        raise InputError(f"{where}: 'description' is a string")
    alls, anys = spec.get("when", []), spec.get("any", [])
    alls = [alls] if isinstance(alls, str) else alls
    if not isinstance(alls, list) or not isinstance(anys, list) or not (alls or anys):
        raise InputError(f"{where}: 'when' is a condition or a list of them, 'any' a list")
    every = [parse_condition(c, features, where) for c in alls]
    some = [parse_condition(c, features, where) for c in anys]

    def test(state: GymState) -> bool:
        return all(t(state) for t in every) and (not some or any(t(state) for t in some))

    return ConceptDef(name, test, description or " and ".join(str(c) for c in alls + anys))


def _actions(value: Any, field: str, adapter: GymAdapter, source: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(a, str) for a in value):
        raise InputError(f"{source}: {field!r} is a list of action names")
    for action in value:
        adapter.index(action)  # unknown actions are one line of bad input
    return tuple(value)


def make_env(env_id: str, options: dict[str, Any], source: str) -> Any:
    """``gymnasium.make(env_id, **options)``; a missing package or a bad id is one line."""
    try:
        import gymnasium
    except ImportError:
        raise InputError("the Gymnasium examples need the 'gymnasium' package: "
                         "pip install 'xaip[gym]'") from None
    if env_id.startswith("ALE/"):
        import ale_py

        gymnasium.register_envs(ale_py)
    try:
        return gymnasium.make(env_id, **options)
    except (gymnasium.error.Error, TypeError, ValueError) as exc:
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputError(f"{source}: cannot make {env_id!r}: {message}"[:300]) from None


def load_env_file(path: str | Path, *, check: bool = True) -> EnvFile:
    """Read an environment file, make its environment and check it with
    :func:`~xaip.gymnasium.conformance.check_env` (``check``); bad input is one line."""
    from xaip.gymnasium.conformance import check_env

    source = str(path)
    data = sidefiles.read_json(path, "vocabulary")
    if not isinstance(data, dict):
        raise InputError(f"{source}: an environment file is a JSON object")
    unknown = set(data) - KEYS
    if unknown:
        raise InputError(f"{source}: unknown key {sorted(unknown)[0]!r} (keys: "
                         f"{', '.join(sorted(KEYS))})")
    env_id, options = data.get("env"), data.get("make", {})
    if not isinstance(env_id, str) or not env_id:
        raise InputError(f"{source}: 'env' names a registered Gymnasium environment, e.g. "
                         "\"FrozenLake-v1\"")
    if not isinstance(options, dict):
        raise InputError(f"{source}: 'make' is an object of gymnasium.make options")
    seed = data.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InputError(f"{source}: 'seed' is a non-negative integer")
    cost = data.get("cost", "steps")
    if cost not in COSTS:
        raise InputError(f"{source}: 'cost' is one of {', '.join(COSTS)}")
    negations = data.get("negations", True)
    if not isinstance(negations, bool):
        raise InputError(f"{source}: 'negations' is true or false")
    names = data.get("actions")
    if names is not None and (not isinstance(names, list)
                              or not all(isinstance(a, str) for a in names)):
        raise InputError(f"{source}: 'actions' is a list of action names")
    restore = data.get("restore", "auto")
    if not isinstance(restore, str):
        raise InputError(f"{source}: 'restore' is a strategy name")
    env = make_env(env_id, options, source)
    adapter = GymAdapter(env, action_names=names, restore=restore, seed=seed)
    if check:
        check_env(adapter, steps=30, seed=seed)
    features = features_of(env, adapter.restore_kind)
    concepts_data = data.get("concepts")
    if not isinstance(concepts_data, dict) or not concepts_data:
        raise InputError(f"{source}: 'concepts' maps concept names to conditions")
    concepts = tuple(_concept(n, s, features, source) for n, s in concepts_data.items())
    goal_text = data.get("goal")
    goal: Test = (parse_condition(goal_text, features, f"{source}: goal")
                  if goal_text is not None else (lambda state: False))
    noop = data.get("noop")
    if noop is not None:
        if not isinstance(noop, str):
            raise InputError(f"{source}: 'noop' is an action name or null")
        adapter.index(noop)
    description = data.get("description", "")
    if not isinstance(description, str):
        raise InputError(f"{source}: 'description' is a string")
    return EnvFile(source, env_id, adapter, features, concepts, negations, goal, cost, noop,
                   _actions(data.get("plan"), "plan", adapter, source),
                   _actions(data.get("foil"), "foil", adapter, source), description)


# ------------------------------------------------------------------ the two explainers' views


def why_not_vocabulary(spec: EnvFile) -> Any:
    """The concepts (and their negations) as a :class:`xaip.concepts.Vocabulary`."""
    from xaip.concepts.vocabulary import Concept, Vocabulary, negation

    concepts = []
    for c in spec.concepts:
        concept = Concept(c.name, c.test, c.description)  # type: ignore[arg-type]
        concepts.append(concept)
        if spec.negations:
            concepts.append(negation(concept))
    return Vocabulary(tuple(concepts))


def black_box(spec: EnvFile) -> Any:
    """The environment as why-not's black box (rewards as the file's costs)."""
    from xaip.concepts.gym import GymBlackBox

    def steps(reward: float) -> float:
        return 1.0

    def negated(reward: float) -> float:
        return -float(reward)

    return GymBlackBox(spec.adapter, name=spec.env_id, noop=spec.noop,
                       cost=steps if spec.cost == "steps" else negated,
                       is_goal=spec.goal, seed=spec.adapter.seed)


def discovery_vocabulary(spec: EnvFile) -> Any:
    """The concepts as nullary predicates of a :class:`xaip.vocab.Vocabulary`."""
    from xaip.vocab import Predicate, Vocabulary

    def nullary(test: Test) -> Callable[[GymState], bool]:
        return lambda state: bool(test(state))

    predicates = [Predicate(c.name, (), nullary(c.test), "set", c.description)
                  for c in spec.concepts]
    return Vocabulary(predicates, [], name=spec.env_id)


def simulator(spec: EnvFile) -> Any:
    """The environment as discovery's simulator (goal: the file's goal)."""
    from xaip.agents.gym import GymSimulator

    return GymSimulator(spec.adapter, is_goal=spec.goal)
