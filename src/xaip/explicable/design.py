"""Environment design for explicability (X07, book ch. 3 §3.4): change the world once so
that the robot's behaviour stops surprising people, when that is cheaper than surprise.

A design problem has tasks ``i`` (a robot problem and the person's view of it) with
probabilities ``p_i``, modifications with additive costs, weights ``α, β, γ``, a horizon
``T`` and a discount ``γ_d`` (the chance ``1 − γ_d`` per step that the person has stopped
minding). A design ``ξ`` (a set of modifications) is scored by

    α · Σ_{t<T} γ_d^t · Σ_i p_i E*_i(ξ)  +  β · C_D(ξ)  +  γ · T · Σ_i p_i C(Λ*_i(ξ))

with ``E*_i`` the lowest inexplicability of task ``i`` under ``ξ`` and ``Λ*_i`` its
cheapest most-explicable plan (:func:`xaip.explicable.planner.explicable_plan`). With
``T = 1`` this is the multi-task objective, with one task the single-task one (eq. 3.1–3.6).

Modifications change initial states: ``human_init_add`` / ``human_init_remove`` change what
the person believes (a visible barrier removes a passage from their model),
``robot_init_add`` / ``robot_init_remove`` change the robot's world.

Search: breadth-first over design subsets, each level adding one modification. With
pruning, a configuration's children add only *relevant* modifications: those that add
facts (they may enable new plans anywhere), and those removing a fact that some
precondition of the robot's chosen plan or of the person's expected plans mentions under
that configuration; removing any other fact leaves every task's answer unchanged and only
adds design cost. Ties go to fewer modifications, then to the earlier-listed ones.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any

from xaip.errors import InputError
from xaip.explicable.measures import ExpectedPlansUnfinished, expected_plans
from xaip.explicable.planner import explicable_plan
from xaip.explicable.problem import make_problem
from xaip.explicable.results import DesignResult, TaskOutcome
from xaip.planning.pddl import check_problem, read_domain, read_problem
from xaip.planning.pddl.model import Atom, Domain, Problem
from xaip.runtime import Budget, Status
from xaip.runtime.budget import BudgetClock, as_clock
from xaip.sidefiles import read_json

CHANGE_KINDS = ("human_init_add", "human_init_remove", "robot_init_add", "robot_init_remove")
INF = math.inf


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

    @property
    def surprise_weight(self) -> float:
        """``Σ_{t<T} γ_d^t``: how many times, discounted, a surprise is felt (the closed
        form of the geometric sum, so a long horizon costs nothing)."""
        if self.discount == 1:
            return float(self.horizon)
        return (1 - self.discount ** self.horizon) / (1 - self.discount)


@dataclass(frozen=True)
class Evaluation:
    objective: float
    design_cost: float
    outcomes: tuple[TaskOutcome, ...]
    relevant: frozenset[int] = field(default=frozenset())


def restaurant_spec() -> Path:
    """The bundled restaurant design problem (book ch. 3)."""
    return Path(str(resources.files("xaip") / "domains" / "restaurant" / "design.json"))


def _atom(text: Any, where: str) -> Atom:
    if not isinstance(text, str):
        raise InputError(f"{where}: expected a fact like '(open a b)', not {text!r}")
    words = text.strip().strip("()").lower().split()
    if not words or not text.strip().startswith("("):
        raise InputError(f"{where}: expected a fact like '(open a b)', not {text!r}")
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


def load_design(spec: str | Path | Mapping[str, Any], setting: str | None = None
                ) -> DesignProblem:
    """Read a JSON design problem (a file, or the decoded mapping with paths relative to
    the working directory); ``setting`` picks one of its named ``settings``."""
    base = Path(".")
    if isinstance(spec, (str, Path)):
        base = Path(spec).parent
        data = read_json(spec, "spec")  # limits, devices, FIFOs, line:column errors
    else:
        data = dict(spec)
    if not isinstance(data, dict):
        raise InputError("a design problem is a JSON object")
    data = _apply_setting(data, setting)
    known = {"description", "robot_domain", "human_domain", "tasks", "modifications",
             "weights", "horizon", "discount", "distance", "settings"}
    if set(data) - known:
        raise InputError(f"unknown design field(s): {', '.join(sorted(set(data) - known))}")
    try:
        robot = read_domain(base / data["robot_domain"])
        human = read_domain(base / data.get("human_domain", data["robot_domain"]))
        tasks = tuple(_task(base, robot, human, t) for t in data["tasks"])
    except KeyError as missing:
        raise InputError(f"the design problem lacks {missing}") from None
    if not tasks:
        raise InputError("a design problem needs at least one task")
    total = sum(t.probability for t in tasks)
    if any(t.probability < 0 for t in tasks) or not math.isclose(total, 1.0, abs_tol=1e-6):
        raise InputError(f"task probabilities must be >= 0 and add up to 1, not {total:g}")
    mods = tuple(_modification(m, robot, human, tasks) for m in data.get("modifications", ()))
    if len({m.name for m in mods}) != len(mods):
        raise InputError("modification names must be unique")
    weights = data.get("weights", {})
    horizon = data.get("horizon", 1)
    discount = data.get("discount", 1.0)
    if not isinstance(horizon, int) or horizon < 1:
        raise InputError(f"horizon must be a whole number >= 1, not {horizon!r}")
    if not isinstance(discount, (int, float)) or not 0 <= discount <= 1:
        raise InputError(f"discount must be in [0, 1], not {discount!r}")
    values = {k: float(weights.get(k, 1.0)) for k in ("alpha", "beta", "gamma")}
    if set(weights) - set(values) or any(v < 0 for v in values.values()):
        raise InputError("weights are alpha, beta and gamma, each >= 0")
    return DesignProblem(robot, human, tasks, mods, values["alpha"], values["beta"],
                         values["gamma"], horizon, float(discount),
                         str(data.get("distance", "cost")))


def _apply_setting(data: dict[str, Any], setting: str | None) -> dict[str, Any]:
    if setting is None:
        return data
    settings = data.get("settings") or {}
    if setting not in settings:
        raise InputError(f"unknown setting {setting!r}; the design problem has "
                         f"{', '.join(sorted(settings)) or 'none'}")
    chosen = settings[setting]
    out = dict(data)
    if "tasks" in chosen:
        by_name = {t.get("name"): t for t in data.get("tasks", ())}
        missing = set(chosen["tasks"]) - set(by_name)
        if missing:
            raise InputError(f"setting {setting!r} names unknown task(s) {sorted(missing)}")
        out["tasks"] = [dict(by_name[n], probability=p) for n, p in chosen["tasks"].items()]
    for key in ("horizon", "discount", "weights", "distance"):
        if key in chosen:
            out[key] = chosen[key]
    return out


def _task(base: Path, robot: Domain, human: Domain, data: Mapping[str, Any]) -> DesignTask:
    robot_problem = read_problem(base / data["problem"])
    human_problem = read_problem(base / data.get("human_problem", data["problem"]))
    check_problem(robot, robot_problem)
    check_problem(human, human_problem)
    probability = data.get("probability", 1.0)
    if not isinstance(probability, (int, float)):
        raise InputError(f"task probability must be a number, not {probability!r}")
    return DesignTask(str(data.get("name", data["problem"])), robot_problem, human_problem,
                      float(probability))


def _modification(data: Mapping[str, Any], robot: Domain, human: Domain,
                  tasks: tuple[DesignTask, ...]) -> Modification:
    name = str(data.get("name", ""))
    if not name:
        raise InputError("every modification needs a name")
    unknown = set(data) - {"name", "cost", *CHANGE_KINDS}
    if unknown:
        raise InputError(f"modification {name!r}: unknown field(s) {sorted(unknown)}; use "
                         f"cost and {', '.join(CHANGE_KINDS)}")
    cost = data.get("cost", 0)
    if not isinstance(cost, (int, float)) or cost < 0:
        raise InputError(f"modification {name!r}: cost must be a number >= 0")
    changes: dict[str, tuple[Atom, ...]] = {}
    for kind in CHANGE_KINDS:
        atoms = tuple(_atom(t, f"modification {name!r}") for t in data.get(kind, ()))
        domain = human if kind.startswith("human") else robot
        for task in tasks:
            problem = task.human_problem if kind.startswith("human") else task.robot_problem
            for atom in atoms:
                _check_atom(atom, domain, problem, f"modification {name!r}")
        changes[kind] = atoms
    if not any(changes.values()):
        raise InputError(f"modification {name!r} changes nothing")
    return Modification(name, float(cost), changes)


def _changed(problem: Problem, add: Iterable[Atom], remove: Iterable[Atom]) -> Problem:
    gone = {str(a) for a in remove}
    init = [a for a in problem.init if str(a) not in gone]
    present = {str(a) for a in init}
    init += [a for a in add if str(a) not in present]
    return replace(problem, init=tuple(init))


def apply_design(spec: DesignProblem, task: DesignTask, design: Iterable[int]
                 ) -> tuple[Problem, Problem]:
    """The task's robot and human problems after the modifications ``design``."""
    mods = [spec.modifications[i] for i in design]

    def gather(kind: str) -> list[Atom]:
        return [a for m in mods for a in m.changes.get(kind, ())]

    return (_changed(task.robot_problem, gather("robot_init_add"), gather("robot_init_remove")),
            _changed(task.human_problem, gather("human_init_add"), gather("human_init_remove")))


class _Exhausted(Exception):
    pass


def evaluate(spec: DesignProblem, design: frozenset[int], clock: BudgetClock | None = None,
             relevance: bool = False) -> Evaluation:
    """The objective of ``design`` (and, with ``relevance``, its relevant modifications)."""
    clock = clock or Budget().start()
    outcomes = []
    mentioned: set[str] = set()
    for task in spec.tasks:
        robot_problem, human_problem = apply_design(spec, task, sorted(design))
        problem = make_problem(spec.robot_domain, robot_problem, spec.human_domain,
                               human_problem)
        answer = explicable_plan(problem, spec.distance, budget=clock, check=False)
        if answer.status == Status.BUDGET_EXHAUSTED:
            raise _Exhausted
        outcomes.append(TaskOutcome(
            task.name, task.probability,
            None if answer.robot_cost is None else float(answer.robot_cost),
            answer.inexplicability if answer.has_plan else None, answer.plan))
        if relevance:
            mentioned |= _preconditions(spec.robot_domain, answer.plan)
            try:
                listed = expected_plans(problem, clock.remaining())
            except ExpectedPlansUnfinished:
                raise _Exhausted from None
            for plan in listed.plans:
                mentioned |= _preconditions(spec.human_domain, tuple(a.name for a in plan))
    design_cost = sum(spec.modifications[i].cost for i in design)
    surprise = sum(o.probability * (INF if o.inexplicability is None else o.inexplicability)
                   for o in outcomes if o.probability > 0)
    cost = sum(o.probability * (INF if o.robot_cost is None else o.robot_cost)
               for o in outcomes if o.probability > 0)
    objective = (_times(spec.alpha * spec.surprise_weight, surprise) + spec.beta * design_cost
                 + _times(spec.gamma * spec.horizon, cost))
    relevant = frozenset(i for i, m in enumerate(spec.modifications)
                         if i not in design and (m.adds or _touches(m.removed, mentioned)))
    return Evaluation(objective, design_cost, tuple(outcomes), relevant)


def _better(key: tuple[float, int, tuple[int, ...]],
            than: tuple[float, int, tuple[int, ...]]) -> bool:
    """Lower objective, or (equal up to rounding) fewer modifications, then earlier ones:
    objectives summed in another order differ in the last bits, and must still tie."""
    a, b = key[0], than[0]
    if not (a == b or (math.isfinite(a) and math.isfinite(b)
                       and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9))):
        return a < b
    return key[1:] < than[1:]


def _touches(removed: frozenset[str], mentioned: set[str]) -> bool:
    return any(fact in mentioned or f"({fact.strip('()').split()[0]} *)" in mentioned
               for fact in removed)


def _times(weight: float, value: float) -> float:
    return 0.0 if weight == 0 else weight * value


def _preconditions(domain: Domain, plan: Iterable[str]) -> set[str]:
    """The ground atoms the preconditions of ``plan``'s steps mention (lifted, so static
    facts count too; a quantified atom's predicate counts as ``(pred *)``)."""
    actions = {a.name: a for a in domain.actions}
    out: set[str] = set()
    for step in plan:
        name, *args = step.split()
        action = actions.get(name)
        if action is None:
            continue
        binding = dict(zip((p.name for p in action.parameters), args, strict=False))
        _atoms(action.precondition, binding, out)
    return out


def _atoms(cond: Any, binding: Mapping[str, str], out: set[str]) -> None:
    if isinstance(cond, Atom):
        args = [binding.get(a, a) for a in cond.args]
        out.add("(" + " ".join((cond.predicate, *args)) + ")")
        if any(a.startswith("?") for a in args):
            out.add(f"({cond.predicate} *)")
        return
    for attr in ("operand", "antecedent", "consequent", "body"):
        if hasattr(cond, attr):
            _atoms(getattr(cond, attr), binding, out)
    for part in getattr(cond, "operands", ()):
        _atoms(part, binding, out)


def design_search(spec: DesignProblem, prune: bool = True, budget: Budget | None = None,
                  check: bool = True) -> DesignResult:
    """The design minimising the objective: breadth-first over subsets of modifications
    (with relevance pruning unless ``prune`` is false). With ``check`` (default) the
    independent checker (:func:`check_design`) runs and sets ``verified``."""
    clock = as_clock(budget)
    start: frozenset[int] = frozenset()
    level = [start]
    seen = {start}
    best: tuple[tuple[float, int, tuple[int, ...]], frozenset[int], Evaluation] | None = None
    baseline: float | None = None
    evaluated = 0
    status = Status.COMPLETE
    try:
        while level:
            following: list[frozenset[int]] = []
            for design in level:
                if not clock.charge():
                    raise _Exhausted
                value = evaluate(spec, design, clock, relevance=prune)
                evaluated += 1
                if not design:
                    baseline = value.objective
                key = (value.objective, len(design), tuple(sorted(design)))
                if best is None or _better(key, best[0]):
                    best = (key, design, value)
                children = value.relevant if prune else (
                    frozenset(range(len(spec.modifications))) - design)
                for index in sorted(children):
                    child = design | {index}
                    if child not in seen:
                        seen.add(child)
                        following.append(child)
            level = following
    except _Exhausted:
        status = Status.BUDGET_EXHAUSTED
    stats: dict[str, int | float] = {"configurations": evaluated, "nodes": clock.nodes}
    if best is None:
        return DesignResult(status, (), None, baseline, 0.0, (), spec.horizon, evaluated,
                            prune, clock.elapsed(), stats)
    _, design, value = best
    result = DesignResult(status, tuple(spec.modifications[i].name for i in sorted(design)),
                          value.objective, baseline, value.design_cost, value.outcomes,
                          spec.horizon, evaluated, prune, clock.elapsed(), stats)
    if check and status.finished:
        from xaip.contract import with_check
        from xaip.explicable.design_check import check_design

        report = check_design(spec, result, budget)
        result = with_check(replace(result, check=report), report)
    return result
