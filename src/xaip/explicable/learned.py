"""A learned explicability distance (X03, book ch. 3 §3.2): a regression from the
explicability feature vector ⟨δ_A, δ_C, δ_S⟩ to the scores people gave to plans.

Why a linear model with a ridge term, in plain Python: three features and a bias need no
numerical library (the normal equations are a 4×4 system), the weights are readable ("the
order of steps matters twice as much as which steps"), and the book leaves the regressor
open. The features of a robot plan are taken against its *distance-minimising* expected
plan (Def. 5: the person's optimal plan nearest under the composite distance, Def. 6).

Dataset format ([D]): JSON Lines, one record per rated plan::

    {"domain": "robot.pddl", "problem": "p.pddl", "plan": ["pick-up c10", ...],
     "score": 0.7, "human_domain": "human.pddl", "human_problem": "p-h.pddl"}

``human_domain`` / ``human_problem`` default to ``domain`` / ``problem``; paths are
relative to the dataset file. Higher scores mean *less* explicable (a distance).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xaip.errors import InputError
from xaip.explicable.distances import composite_distance, feature_vector, trace_of
from xaip.explicable.measures import expected_plans
from xaip.explicable.problem import ExplicableProblem, load_problem, plan_in
from xaip.sidefiles import expect, read_json, read_text

FEATURES = ("action", "causal", "state")


@dataclass(frozen=True)
class ExplicabilityFeatures:
    """Def. 5–6: the nearest expected plan (composite distance) and the feature vector."""

    nearest: tuple[str, ...]
    vector: Mapping[str, float]


def explicability_features(problem: ExplicableProblem, plan: Sequence[Any],
                           expected: Sequence[Sequence[Any]] | None = None
                           ) -> ExplicabilityFeatures:
    """The feature vector of a robot plan against its distance-minimising expected plan."""
    mine = plan_in(problem.robot_task, plan)
    if mine is None:
        raise InputError("the plan is not a valid plan of the robot's model")
    if expected is None:
        expected = expected_plans(problem).plans
    own = trace_of(problem.robot_task, mine)
    best: tuple[float, tuple[str, ...], dict[str, float]] | None = None
    for other in expected:
        theirs = plan_in(problem.human_task, other)
        if theirs is None:
            continue
        trace = trace_of(problem.human_task, theirs)
        value = composite_distance(own, trace)
        if best is None or value < best[0]:
            best = (value, tuple(a.name for a in theirs), feature_vector(own, trace))
    if best is None:
        raise InputError("the person's model has no expected plan to compare with")
    return ExplicabilityFeatures(best[1], best[2])


@dataclass(frozen=True)
class LearnedDistance:
    """``δ*(F) = bias + Σ weight_f · F_f``, clamped at 0 (a distance is never negative)."""

    weights: Mapping[str, float]
    bias: float = 0.0

    def __post_init__(self) -> None:
        """A distance is a non-negative, finite function of the features: weights and bias
        must be finite numbers >= 0 (a NaN or negative weight made every plan's distance 0,
        hence IE 0 for all of them, and that answer was verified)."""
        if set(self.weights) != set(FEATURES):
            raise InputError(f"a learned distance has one weight for each of "
                             f"{', '.join(FEATURES)}")
        for name, value in (*self.weights.items(), ("bias", self.bias)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or not math.isfinite(value) or value < 0:
                raise InputError(f"learned distance: {name} must be a finite number >= 0, "
                                 f"not {value!r}"[:160])

    def __call__(self, vector: Mapping[str, float]) -> float:
        return max(0.0, self.bias + sum(self.weights[f] * vector[f] for f in FEATURES))

    def to_dict(self) -> dict[str, Any]:
        return {"weights": dict(self.weights), "bias": self.bias}

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> LearnedDistance:
        try:
            data = read_json(path, "weights")  # limits; NaN/Infinity refused
            given = expect(expect(data, dict, f"{path}")["weights"], dict, f"{path}: weights")
            weights = {f: expect(given[f], float, f"{path}: weights.{f}") for f in FEATURES}
            bias = expect(data.get("bias", 0.0), float, f"{path}: bias")
        except (KeyError, TypeError, ValueError):
            raise InputError(f"{path} is not a learned distance (JSON with weights for "
                             f"{', '.join(FEATURES)} and a bias)") from None
        if set(given) - set(FEATURES) or set(data) - {"weights", "bias"}:
            raise InputError(f"{path}: a learned distance has only weights for "
                             f"{', '.join(FEATURES)} and a bias")
        return cls(weights, float(bias))


def fit_distance(rows: Iterable[tuple[Mapping[str, float], float]], ridge: float = 1e-6
                 ) -> LearnedDistance:
    """Least squares (with a small ridge term) from feature vectors to scores."""
    data = [([1.0, *(float(v[f]) for f in FEATURES)], float(score)) for v, score in rows]
    if len(data) < 2:
        raise InputError("fitting a distance needs at least two rated plans")
    size = 1 + len(FEATURES)
    matrix = [[sum(x[i] * x[j] for x, _ in data) + (ridge if i == j and i > 0 else 0.0)
               for j in range(size)] for i in range(size)]
    vector = [sum(x[i] * y for x, y in data) for i in range(size)]
    solution = _solve(matrix, vector)
    weights = dict(zip(FEATURES, solution[1:], strict=True))
    negative = [name for name, value in (*weights.items(), ("bias", solution[0]))
                if value < 0 or not math.isfinite(value)]
    if negative:
        raise InputError(f"the ratings do not fit a distance: the least-squares {negative[0]} "
                         f"is {dict(weights, bias=solution[0])[negative[0]]:.3g} (< 0)")
    return LearnedDistance(weights, solution[0])


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting; a singular direction gets weight 0."""
    n = len(vector)
    rows = [row[:] + [value] for row, value in zip(matrix, vector, strict=True)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        if abs(rows[col][col]) < 1e-12:
            continue
        for r in range(n):
            if r != col:
                factor = rows[r][col] / rows[col][col]
                rows[r] = [a - factor * b for a, b in zip(rows[r], rows[col], strict=True)]
    return [rows[i][n] / rows[i][i] if abs(rows[i][i]) >= 1e-12 else 0.0 for i in range(n)]


def read_dataset(path: str | Path) -> list[tuple[Mapping[str, float], float]]:
    """Feature vectors and scores of a JSON Lines dataset (see the module docstring)."""
    base = Path(path).parent
    problems: dict[tuple[str, ...], ExplicableProblem] = {}
    rows = []
    try:
        lines = read_text(path, "labels").splitlines()
    except (OSError, UnicodeDecodeError) as error:  # pragma: no cover - read_text says why
        raise InputError(f"cannot read dataset {path}: "
                         f"{getattr(error, 'strerror', None) or 'not UTF-8'}") from None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            files = (record["domain"], record.get("human_domain", record["domain"]),
                     record["problem"], record.get("human_problem", record["problem"]))
            plan, score = record["plan"], float(record["score"])
        except (json.JSONDecodeError, KeyError, TypeError, ValueError):
            raise InputError(f"{path}:{number}: expected a JSON object with domain, problem, "
                             "plan and score") from None
        if files not in problems:
            problems[files] = load_problem(base / files[0], base / files[1], base / files[2],
                                           base / files[3])
        steps = plan.replace(")", ")\n").split("\n") if isinstance(plan, str) else plan
        steps = [s for s in steps if s.strip()]
        rows.append((explicability_features(problems[files], steps).vector, score))
    return rows
