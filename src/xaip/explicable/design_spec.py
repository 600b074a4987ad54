"""Design problems as data, and the JSON spec that describes them (``xaip design SPEC``).

Why a module of its own: a spec is a user's file, so every field is checked for its JSON
type and range before anything uses it -- a ``null`` domain, ``"weights": []``, a
modification that is a number, a NaN cost (possible through the Python API) or a boolean
horizon each give one line naming the field (exit 2), never a traceback. The loader also
records every file the spec names (:attr:`DesignProblem.files`), so that ``--png`` can
refuse to overwrite any of them before the search starts.

The format (docs/explicable.md §4)::

    {"description": str, "robot_domain": path, "human_domain": path,
     "tasks": [{"name": str, "problem": path, "human_problem": path,
                "probability": number}, ...],
     "modifications": [{"name": str, "cost": number >= 0,
                        "human_init_add" | "human_init_remove" | "robot_init_add"
                        | "robot_init_remove": ["(fact arg ...)", ...]}, ...],
     "weights": {"alpha": n, "beta": n, "gamma": n}, "horizon": int >= 1,
     "discount": number in [0, 1], "distance": cost|action|causal|state|composite,
     "settings": {name: {"tasks": {task name: probability}, "horizon", "discount",
                         "weights", "distance"}}}

Paths are relative to the spec file.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from xaip.errors import InputError
from xaip.planning.pddl import check_problem, read_domain, read_problem
from xaip.planning.pddl.model import Atom, Domain, Problem
from xaip.sidefiles import expect, read_json

CHANGE_KINDS = ("human_init_add", "human_init_remove", "robot_init_add", "robot_init_remove")
#: The distances a design can use (``learned`` needs a fitted model, which a spec lacks).
DESIGN_DISTANCES = ("cost", "action", "causal", "state", "composite")
#: The largest horizon (the CLI's count limit, 2**63 - 1).
MAX_HORIZON = 2**63 - 1
TOP_FIELDS = ("description", "robot_domain", "human_domain", "tasks", "modifications",
              "weights", "horizon", "discount", "distance", "settings")
SETTING_FIELDS = ("tasks", "horizon", "discount", "weights", "distance")
TASK_FIELDS = ("name", "problem", "human_problem", "probability")
WEIGHTS = ("alpha", "beta", "gamma")


@dataclass(frozen=True)
class Modification:
    name: str
    cost: float
    changes: Mapping[str, tuple[Atom, ...]]

    @property
    def adds(self) -> bool:
        return bool(self.changes.get("human_init_add") or self.changes.get("robot_init_add"))

    @property
    def removed(self) -> frozenset[str]:
        return frozenset(str(a) for kind in ("human_init_remove", "robot_init_remove")
                         for a in self.changes.get(kind, ()))


@dataclass(frozen=True)
class DesignTask:
    name: str
    robot_problem: Problem
    human_problem: Problem
    probability: float


@dataclass(frozen=True)
class DesignProblem:
    robot_domain: Domain
    human_domain: Domain
    tasks: tuple[DesignTask, ...]
    modifications: tuple[Modification, ...]
    alpha: float = 1.0
    beta: float = 1.0
    gamma: float = 1.0
    horizon: int = 1
    discount: float = 1.0
    distance: str = "cost"
    #: Every file the spec names (and the spec itself): no output may overwrite one.
    files: tuple[str, ...] = field(default=(), compare=False)

    @property
    def surprise_weight(self) -> float:
        """``Σ_{t<T} γ_d^t``: how many times, discounted, a surprise is felt (the closed
        form of the geometric sum, so a long horizon costs nothing)."""
        if self.discount == 1:
            return float(self.horizon)
        return (1 - self.discount ** self.horizon) / (1 - self.discount)


def restaurant_spec() -> Path:
    """The bundled restaurant design problem (book ch. 3)."""
    return Path(str(resources.files("xaip") / "domains" / "restaurant" / "design.json"))


def _number(value: Any, where: str, low: float = 0.0, high: float = math.inf) -> float:
    """A finite JSON number in ``[low, high]`` (booleans are not numbers)."""
    number = float(expect(value, float, where))
    if not math.isfinite(number) or not low <= number <= high:
        shown = "a finite number" if not math.isfinite(number) else repr(value)
        limits = f">= {low:g}" if high == math.inf else f"in [{low:g}, {high:g}]"
        raise InputError(f"{where}: expected a number {limits}, not {shown}")
    return number


def _fields(data: Any, allowed: tuple[str, ...], where: str) -> dict[str, Any]:
    """``data`` as a JSON object with only ``allowed`` fields."""
    obj = expect(data, dict, where)
    unknown = sorted(str(k) for k in set(obj) - set(allowed))
    if unknown:
        raise InputError(f"{where}: unknown field(s) {', '.join(unknown)}; use "
                         f"{', '.join(allowed)}")
    return obj


def _path(value: Any, where: str) -> str:
    text = expect(value, str, where)
    if not text.strip():
        raise InputError(f"{where}: expected a file name, not an empty string")
    return text


def _atom(text: Any, where: str) -> Atom:
    if not isinstance(text, str):
        raise InputError(f"{where}: expected a fact like '(open a b)', not {text!r}"[:200])
    words = text.strip().strip("()").lower().split()
    if not words or not text.strip().startswith("("):
        raise InputError(f"{where}: expected a fact like '(open a b)', not {text[:60]!r}")
    return Atom(words[0], tuple(words[1:]))


def _check_atom(atom: Atom, domain: Domain, problem: Problem, where: str) -> None:
    arity = {p.name: len(p.parameters) for p in domain.predicates}
    if atom.predicate not in arity:
        raise InputError(f"{where}: unknown predicate in {atom}")
    if arity[atom.predicate] != len(atom.args):
        raise InputError(f"{where}: {atom} has the wrong number of arguments")
    names = {o.name for o in problem.objects} | {c.name for c in domain.constants}
    unknown = [a for a in atom.args if a not in names]
    if unknown:
        raise InputError(f"{where}: unknown object(s) {', '.join(unknown)} in {atom}")


def _weights(value: Any, where: str) -> dict[str, float]:
    given = _fields(value, WEIGHTS, where)
    return {k: _number(given.get(k, 1.0), f"{where}.{k}") for k in WEIGHTS}


def _horizon(value: Any, where: str) -> int:
    horizon = expect(value, int, where)
    if not 1 <= horizon <= MAX_HORIZON:
        raise InputError(f"{where}: expected a whole number in [1, 2**63 - 1], not {horizon}")
    return horizon


def _distance(value: Any, where: str) -> str:
    name = expect(value, str, where)
    if name not in DESIGN_DISTANCES:
        raise InputError(f"{where}: unknown distance {name[:40]!r}; use one of "
                         f"{', '.join(DESIGN_DISTANCES)}")
    return name


def _check_setting(name: str, value: Any) -> None:
    where = f"settings.{name}"
    chosen = _fields(value, SETTING_FIELDS, where)
    if "tasks" in chosen:
        for task, probability in expect(chosen["tasks"], dict, f"{where}.tasks").items():
            _number(probability, f"{where}.tasks.{task}", 0.0, 1.0)
    if "horizon" in chosen:
        _horizon(chosen["horizon"], f"{where}.horizon")
    if "discount" in chosen:
        _number(chosen["discount"], f"{where}.discount", 0.0, 1.0)
    if "weights" in chosen:
        _weights(chosen["weights"], f"{where}.weights")
    if "distance" in chosen:
        _distance(chosen["distance"], f"{where}.distance")


def _apply_setting(data: dict[str, Any], setting: str | None) -> dict[str, Any]:
    settings = expect(data.get("settings", {}), dict, "settings")
    for name, value in settings.items():
        _check_setting(name, value)
    if setting is None:
        return data
    if setting not in settings:
        raise InputError(f"unknown setting {setting[:40]!r}; the design problem has "
                         f"{', '.join(sorted(settings)) or 'none'}")
    chosen = settings[setting]
    out = dict(data)
    if "tasks" in chosen:
        tasks = expect(data.get("tasks"), list, "tasks")
        by_name = {}
        for number, task in enumerate(tasks, start=1):
            entry = expect(task, dict, f"tasks[{number}]")
            key = entry.get("name", entry.get("problem"))
            by_name[expect(key, str, f"tasks[{number}].name")] = entry
        missing = set(chosen["tasks"]) - set(by_name)
        if missing:
            raise InputError(f"setting {setting!r} names unknown task(s) {sorted(missing)}")
        out["tasks"] = [dict(by_name[n], probability=p) for n, p in chosen["tasks"].items()]
    for key in ("horizon", "discount", "weights", "distance"):
        if key in chosen:
            out[key] = chosen[key]
    return out


def load_design(spec: str | Path | Mapping[str, Any], setting: str | None = None
                ) -> DesignProblem:
    """Read a JSON design problem (a file, or the decoded mapping with paths relative to
    the working directory); ``setting`` picks one of its named ``settings``. Every field
    is checked (see the module docstring); bad input raises a one-line
    :class:`~xaip.errors.InputError`."""
    base = Path(".")
    files: list[str] = []
    if isinstance(spec, (str, Path)):
        base = Path(spec).parent
        files.append(str(spec))
        data = read_json(spec, "spec")  # limits, devices, FIFOs, line:column errors
    else:
        data = dict(spec) if isinstance(spec, Mapping) else spec
    data = dict(_fields(data, TOP_FIELDS, "the design problem"))
    files += _named_files(data, base)
    if setting is not None:
        expect(setting, str, "setting")
    data = _apply_setting(data, setting)
    if "description" in data:
        expect(data["description"], str, "description")
    for required in ("robot_domain", "tasks"):
        if required not in data:
            raise InputError(f"the design problem lacks {required!r}")
    robot_file = _path(data["robot_domain"], "robot_domain")
    human_file = _path(data.get("human_domain", robot_file), "human_domain")
    robot = read_domain(base / robot_file)
    human = read_domain(base / human_file)
    entries = expect(data["tasks"], list, "tasks")
    if not entries:
        raise InputError("tasks: a design problem needs at least one task")
    tasks = tuple(_task(base, robot, human, entry, f"tasks[{number}]")
                  for number, entry in enumerate(entries, start=1))
    if len({t.name for t in tasks}) != len(tasks):
        raise InputError("tasks: task names must be unique")
    total = math.fsum(t.probability for t in tasks)
    if not math.isclose(total, 1.0, abs_tol=1e-6):
        raise InputError(f"tasks: probabilities must add up to 1, not {total:g}")
    mods = tuple(_modification(entry, robot, human, tasks, f"modifications[{number}]")
                 for number, entry in enumerate(
                     expect(data.get("modifications", []), list, "modifications"), start=1))
    if len({m.name for m in mods}) != len(mods):
        raise InputError("modifications: names must be unique")
    weights = _weights(data.get("weights", {}), "weights")
    horizon = _horizon(data.get("horizon", 1), "horizon")
    discount = _number(data.get("discount", 1.0), "discount", 0.0, 1.0)
    distance = _distance(data.get("distance", "cost"), "distance")
    return DesignProblem(robot, human, tasks, mods, weights["alpha"], weights["beta"],
                         weights["gamma"], horizon, discount, distance, tuple(files))


def _named_files(data: dict[str, Any], base: Path) -> list[str]:
    """Every file name in the spec, whichever setting is chosen (a setting that drops a
    task still names its files, and an output must not replace them)."""
    names = [data.get("robot_domain"), data.get("human_domain")]
    tasks = data.get("tasks")
    for task in tasks if isinstance(tasks, list) else ():
        if isinstance(task, dict):
            names += [task.get("problem"), task.get("human_problem")]
    return [str(base / name) for name in names if isinstance(name, str) and name.strip()]


def _task(base: Path, robot: Domain, human: Domain, data: Any, where: str) -> DesignTask:
    entry = _fields(data, TASK_FIELDS, where)
    if "problem" not in entry:
        raise InputError(f"{where}: lacks 'problem'")
    robot_file = _path(entry["problem"], f"{where}.problem")
    human_file = _path(entry.get("human_problem", robot_file), f"{where}.human_problem")
    name = expect(entry.get("name", robot_file), str, f"{where}.name")
    probability = _number(entry.get("probability", 1.0), f"{where}.probability", 0.0, 1.0)
    robot_problem = read_problem(base / robot_file)
    human_problem = read_problem(base / human_file)
    check_problem(robot, robot_problem)
    check_problem(human, human_problem)
    return DesignTask(name, robot_problem, human_problem, probability)


def _modification(data: Any, robot: Domain, human: Domain, tasks: tuple[DesignTask, ...],
                  where: str) -> Modification:
    entry = _fields(data, ("name", "cost", *CHANGE_KINDS), where)
    name = expect(entry.get("name", ""), str, f"{where}.name")
    if not name:
        raise InputError(f"{where}: every modification needs a name")
    cost = _number(entry.get("cost", 0), f"{where}.cost")
    changes: dict[str, tuple[Atom, ...]] = {}
    for kind in CHANGE_KINDS:
        listed = expect(entry.get(kind, []), list, f"{where}.{kind}")
        atoms = tuple(_atom(t, f"{where}.{kind}") for t in listed)
        domain = human if kind.startswith("human") else robot
        for task in tasks:
            problem = task.human_problem if kind.startswith("human") else task.robot_problem
            for atom in atoms:
                _check_atom(atom, domain, problem, f"modification {name[:40]!r}")
        changes[kind] = atoms
    if not any(changes.values()):
        raise InputError(f"modification {name[:40]!r} changes nothing")
    return Modification(name, cost, changes)
