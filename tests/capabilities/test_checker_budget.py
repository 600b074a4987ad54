"""The realisability checker runs under the user's budget, split equally among the sampled
cases, and has no cap of its own (issue 21): without a budget every case is decided; with
one, a case that spends its share is undecided and the verdict is "unverified: checker
budget"; the memory of exhausted searches never changes an answer."""

from __future__ import annotations

from xaip.capabilities.model import Capability, CapabilityModel, Literal
from xaip.capabilities.realise import _Searcher, check_realisability, share
from xaip.contract import CHECKER_BUDGET
from xaip.planning.pddl.model import Atom
from xaip.runtime.budget import Budget

from .conftest import Lamp, LampWorld, all_lamp_states, lamp_vocabulary, reachable


def _lit(pred: str, *args: str, positive: bool = True) -> Literal:
    return Literal(Atom(pred, tuple(args)), positive)


def _model() -> CapabilityModel:
    """``go`` (realisable everywhere) and ``grab-in-the-dark``, which claims the gem can be
    held with the light still off: never realisable (the light only turns on)."""
    go = Capability("go", (("?c1", "cell"), ("?c2", "cell")),
                    (_lit("robot_at", "?c1"),),
                    (_lit("robot_at", "?c2"), _lit("robot_at", "?c1", positive=False)))
    dark = Capability("dark", (("?c", "cell"),),
                      (_lit("gem_at", "?c"), _lit("light", positive=False)),
                      (_lit("holding"), _lit("gem_at", "?c", positive=False)))
    return CapabilityModel("lamp", (), ("cell",), (), (go, dark))


def _dark_states() -> list[Lamp]:
    return [s for s in all_lamp_states() if not s.light and s.gem >= 0]


def test_without_a_budget_every_case_is_decided_and_the_wrong_claim_refuted() -> None:
    report = check_realisability(_model(), LampWorld(), lamp_vocabulary(), _dark_states(),
                                 per_capability=3)
    assert report.undecided == 0
    assert {c.capability for c in report.failures()} == {"dark"}
    assert report.counts("go") == (3, 3)


def test_a_tight_budget_leaves_cases_undecided_within_their_shares() -> None:
    clock = Budget(max_nodes=40).start()
    report = check_realisability(_model(), LampWorld(), lamp_vocabulary(), _dark_states(),
                                 per_capability=3, clock=clock)
    assert report.undecided > 0
    assert all(c.outcome != "not-realised" or c.nodes <= 40 for c in report.cases)
    assert clock.nodes <= 40  # the cases never spend more than the whole budget


def test_share_is_an_equal_part_of_what_is_left() -> None:
    clock = Budget(max_nodes=100, max_seconds=1000.0).start()
    clock.charge(40)
    part = share(clock, 3)
    assert part.max_nodes == 20
    assert part.max_seconds is not None and 333.0 < part.max_seconds <= 333.34
    assert share(None, 3) == Budget()
    assert share(Budget().start(), 5) == Budget()


def test_memory_of_exhausted_searches_gives_the_fresh_answer() -> None:
    """Every (start, target) pair of the lamp world: the answer with the shared memory
    equals the answer of a search that remembers nothing, and it agrees with reachability
    listed here."""
    world, vocab = LampWorld(), lamp_vocabulary()
    shared = _Searcher(world, vocab)
    targets = {vocab.abstract(s, include_types=False) for s in all_lamp_states()}
    unlimited = Budget()
    reused = 0
    for start in sorted(all_lamp_states()):
        reach = {vocab.abstract(s, include_types=False) for s in reachable(world, start)}
        for target in sorted(targets, key=lambda t: sorted(map(str, t))):
            outcome, nodes = shared.reach(start, target, unlimited.start(), None)
            fresh, _ = _Searcher(world, vocab).reach(start, target, unlimited.start(), None)
            assert outcome == fresh == ("realised" if target in reach else "not-realised")
            reused += outcome == "not-realised" and nodes == 0
    assert reused > 0  # the memory answered some cases without searching


def test_the_checker_budget_verdict_names_the_undecided_cases() -> None:
    from xaip.capabilities.checks import ConsistencyReport, DiscoveryChecks

    clock = Budget(max_nodes=5).start()  # 4 for the groundings, 1 left for 2 cases
    model = CapabilityModel("lamp", (), ("cell",), (), _model().capabilities[:1])
    starts = [Lamp(2, 1, False), Lamp(0, 2, True)]
    report = check_realisability(model, LampWorld(), lamp_vocabulary(), starts,
                                 per_capability=2, clock=clock)
    checks = DiscoveryChecks(ConsistencyReport(0, 0), report)
    assert report.undecided > 0
    verdict = checks.report()
    assert verdict.ok is None and verdict.details.startswith(CHECKER_BUDGET)
    assert "share of the budget" in verdict.details
