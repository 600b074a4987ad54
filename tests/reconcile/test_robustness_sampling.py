"""Robustness by sampling (U02): the estimate's interval covers the exact value.

Random instances are the book's USAR model (book-spec §5.2) with random possible features
(extra passages, the hand precondition, irrelevant ``visited`` facts) and random
probabilities; the exact value comes from enumerating every completion
(:meth:`ConformantExplainer.robustness`, the checker's enumeration), the estimate from
forced sampling (``max_completions=0``).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from xaip.cli import main
from xaip.errors import InputError
from xaip.planning.features import Feature, FeatureKind
from xaip.planning.pddl.model import Atom
from xaip.reconcile.annotated import AnnotatedMRP, Possible, read_annotations
from xaip.reconcile.conformant import ConformantExplainer
from xaip.reconcile.problem import MRP, load_mrp
from xaip.reconcile.robustness import (
    RobustnessOptions,
    estimate_robustness,
    hoeffding_halfwidth,
    hoeffding_samples,
)
from xaip.runtime import Budget, Status

USAR = Path(__file__).resolve().parents[2] / "src" / "xaip" / "domains" / "usar"
WAYPOINTS = [f"p{i}" for i in range(1, 10)]


@pytest.fixture(scope="module")
def mrp() -> MRP:
    return load_mrp(USAR / "robot.pddl", USAR / "human.pddl", USAR / "problem.pddl",
                    USAR / "plan.txt", USAR / "human-problem.pddl")


def _init(*atom: str) -> Feature:
    return Feature(FeatureKind.INIT, atom=Atom(atom[0], tuple(atom[1:])))


def random_possible(mrp: MRP, rng: random.Random, k: int) -> tuple[Possible, ...]:
    """``k`` possible features not in the known human model: passages (some of them short
    cuts), the hand precondition of clear_passage, ``visited`` facts (irrelevant)."""
    pool: list[Feature] = [
        Feature(FeatureKind.PRECONDITION, "clear_passage", ("?from", "?to"),
                Atom("hand_capable", ()))]
    for a in WAYPOINTS:
        pool.append(_init("visited", a))
        for b in WAYPOINTS:
            if a != b:
                pool.append(_init("passage", a, b))
    chosen: list[Possible] = []
    rng.shuffle(pool)
    for feature in pool:
        if len(chosen) == k:
            break
        try:
            AnnotatedMRP(mrp, (Possible(feature, 0.5),))
        except InputError:
            continue  # already part of the known model
        chosen.append(Possible(feature, round(rng.uniform(0.05, 0.95), 2)))
    return tuple(chosen)


@pytest.mark.parametrize("seed", range(8))
def test_the_sampled_interval_covers_the_exact_value(mrp: MRP, seed: int) -> None:
    rng = random.Random(seed)
    amrp = AnnotatedMRP(mrp, random_possible(mrp, rng, rng.randint(1, 5)))
    explainer = ConformantExplainer(amrp)
    edits = tuple(e for e in explainer.candidates if rng.random() < 0.4)
    exact = explainer.robustness(edits)
    listed = explainer.robustness_estimate(edits)
    assert listed.exact and listed.value == pytest.approx(exact)
    assert listed.low == listed.high == listed.value
    sampled = explainer.robustness_estimate(edits, max_completions=0, precision=0.1,
                                            confidence=0.99, seed=seed)
    assert not sampled.exact and sampled.status == Status.COMPLETE
    assert sampled.samples == hoeffding_samples(0.1, 0.99)
    assert sampled.value is not None
    assert sampled.low - 1e-12 <= exact <= sampled.high + 1e-12, (exact, sampled)
    assert sampled.high - sampled.low <= 0.2 + 1e-12


def test_sampling_is_seeded(mrp: MRP) -> None:
    amrp = AnnotatedMRP(mrp, random_possible(mrp, random.Random(3), 4))
    one = estimate_robustness(amrp, max_completions=0, samples=60, seed=7)
    two = estimate_robustness(amrp, max_completions=0, samples=60, seed=7)
    assert (one.value, one.explained, one.tested) == (two.value, two.explained, two.tested)
    assert one.seed == 7 and one.samples == 60 and one.precision is None


def test_beyond_the_cap_robustness_is_sampled_never_exact(mrp: MRP) -> None:
    # 15 possible features: 32,768 completions, above the cap. Only (passage p1 p9) and the
    # hand precondition matter; the visited facts never do, so the exact value is known
    # from the two relevant features alone.
    relevant = (Possible(_init("passage", "p1", "p9"), 0.3),
                Possible(Feature(FeatureKind.PRECONDITION, "clear_passage",
                                 ("?from", "?to"), Atom("hand_capable", ())), 0.6))
    irrelevant = tuple(Possible(_init("visited", w), 0.5) for w in WAYPOINTS) + tuple(
        Possible(Feature(FeatureKind.ADD_EFFECT, name, ("?from", "?to"),
                         Atom("visited", (arg,))), 0.5)
        for name in ("move", "clear_passage") for arg in ("?from", "?to"))
    big = ConformantExplainer(AnnotatedMRP(mrp, relevant + irrelevant))
    assert len(big.amrp.possible) == 15
    with pytest.raises(InputError, match="robustness_estimate"):
        big.robustness(())
    small = ConformantExplainer(AnnotatedMRP(mrp, relevant))
    exact = small.robustness(())
    estimate = big.robustness_estimate((), precision=0.1, confidence=0.95, seed=1)
    assert not estimate.exact and estimate.completions == 2 ** 15
    assert estimate.samples == hoeffding_samples(0.1, 0.95) == 185
    assert estimate.low <= exact <= estimate.high
    payload = estimate.to_dict()
    assert payload["exact"] is False and payload["interval"] == "hoeffding"


def test_hoeffding_counts() -> None:
    assert hoeffding_samples(0.05, 0.95) == 738
    assert hoeffding_halfwidth(738, 0.95) <= 0.05 < hoeffding_halfwidth(737, 0.95)
    for bad in (0.0, 1.0, -0.1, float("nan")):
        with pytest.raises(InputError):
            hoeffding_samples(bad, 0.95)
        with pytest.raises(InputError):
            hoeffding_samples(0.1, bad)


def test_a_budget_ends_sampling_as_budget_exhausted(mrp: MRP) -> None:
    amrp = AnnotatedMRP(mrp, random_possible(mrp, random.Random(5), 5))
    estimate = estimate_robustness(amrp, max_completions=0, samples=500,
                                   budget=Budget(max_nodes=3))
    assert estimate.status == Status.BUDGET_EXHAUSTED and not estimate.exact
    assert estimate.samples < 500


def test_conformant_reports_a_sampled_robustness_as_an_estimate(mrp: MRP) -> None:
    amrp = AnnotatedMRP(mrp, read_annotations(USAR / "annotations.txt", mrp.human_domain))
    from xaip.reconcile import explain

    result = explain(amrp, "conformant", robustness=RobustnessOptions(max_completions=0,
                                                                      precision=0.1))
    assert result.verified
    assert result.robustness_before is None  # never the exact field
    before = result.robustness_before_estimate
    assert before is not None and not before.exact and before.low <= 0.0 <= before.high
    assert result.to_dict()["robustness_before_estimate"]["method"] == "sampling"


def test_cli_flags_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    args = [str(USAR / "robot.pddl"), str(USAR / "human.pddl"), str(USAR / "problem.pddl"),
            "--plan", str(USAR / "plan.txt"), "--human-problem",
            str(USAR / "human-problem.pddl"), "--type", "conformant", "--annotations",
            str(USAR / "annotations.txt")]
    assert main(["explain", *args, "--max-completions", "0", "--robustness-precision",
                 "0.2", "--seed", "4"]) == 0
    text = capsys.readouterr().out
    assert "sampled estimate, not exact" in text and "Hoeffding" in text
    assert main(["explain", *args, "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["robustness_before"] == 0.0
    assert payload["robustness_before_estimate"]["exact"] is True
    assert main(["explain", *args, "--robustness-precision", "1.5"]) == 2
    assert main(["explain", *args, "--robustness-confidence", "0"]) == 2
