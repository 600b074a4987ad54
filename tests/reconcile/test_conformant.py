"""Explanations for uncertain human models (book ch. 6) on the USAR instance of book-spec §5.2.

The oracle throughout is enumeration: every completion of the annotated model is rebuilt
and checked with ``is_complete``; the search's Prop. 7 goal test is not trusted.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from xaip.cli import main
from xaip.errors import InputError
from xaip.planning.pddl import parse_domain, parse_problem
from xaip.reconcile import Explainer
from xaip.reconcile.annotated import AnnotatedMRP, completions, parse_annotations, read_annotations
from xaip.reconcile.checks import is_complete
from xaip.reconcile.conformant import ConformantExplainer, _State, expected_statements
from xaip.reconcile.problem import empty_model, load_mrp, make_mrp

USAR = Path(__file__).resolve().parents[2] / "src" / "xaip" / "domains" / "usar"


@pytest.fixture(scope="module")
def usar() -> ConformantExplainer:
    mrp = load_mrp(USAR / "robot.pddl", USAR / "human.pddl", USAR / "problem.pddl",
                   USAR / "plan.txt", USAR / "human-problem.pddl")
    return ConformantExplainer(AnnotatedMRP(mrp, read_annotations(USAR / "annotations.txt",
                                                                 mrp.human_domain)))


def by_text(explainer: ConformantExplainer, *fragments: str) -> list:  # type: ignore[type-arg]
    out = []
    for fragment in fragments:
        (match,) = [c for c in explainer.candidates if fragment in c.text]
        out.append(match)
    return out


def test_the_book_conformant_explanation_is_found_and_unique(usar: ConformantExplainer) -> None:
    result = usar.conformant()
    assert result.verified and result.robustness == pytest.approx(1.0)
    assert sorted((e.label, e.text) for e in result.edits) == sorted([
        ("remove-known", "Initially (hand_capable) does not hold"),
        ("add-annot", "clear_passage(?from, ?to) requires (hand_capable)"),
        ("remove-annot", "Initially (passage p1 p9) does not hold"),
    ])
    # Brute force over every edit subset: the size-3 conformant set is the unique minimum.
    conformant = [subset for size in range(len(usar.candidates) + 1)
                  for subset in itertools.combinations(usar.candidates, size)
                  if usar.robustness(subset) == pytest.approx(1.0)]
    smallest = min(len(s) for s in conformant)
    assert smallest == 3
    assert [set(s) for s in conformant if len(s) == 3] == [set(result.edits)]


def test_robustness_values_of_the_book(usar: ConformantExplainer) -> None:
    hand, p19 = by_text(usar, "(hand_capable) does not hold", "(passage p1 p9) does not")
    assert usar.robustness(()) == pytest.approx(0.0)
    assert usar.robustness([p19]) == pytest.approx(0.0)
    assert usar.robustness([hand]) == pytest.approx(0.25)
    assert usar.robustness([hand, p19]) == pytest.approx(0.5)


def test_representatives_agree_with_enumerating_completions(usar: ConformantExplainer) -> None:
    for size in range(len(usar.candidates) + 1):
        for subset in itertools.combinations(usar.candidates, size):
            fast = usar.is_explained(_State(frozenset(subset), frozenset()))
            assert fast == (usar.robustness(subset) == pytest.approx(1.0)), subset


@pytest.mark.parametrize("alpha", [0.0, 0.5, 1.0])
def test_conditional_policies_are_verified_and_never_say_more(
        usar: ConformantExplainer, alpha: float) -> None:
    conformant = usar.conformant()
    result = usar.conditional(alpha=alpha)
    assert result.verified
    assert result.expected_statements <= conformant.size + 1e-9
    assert expected_statements(result.policy) == pytest.approx(result.expected_statements)
    json.dumps(result.to_dict())


def test_myopic_conditional_policy_asks_before_telling(usar: ConformantExplainer) -> None:
    result = usar.conditional(alpha=0.0)
    assert result.expected_statements < usar.conformant().size
    assert "ask" in json.dumps(result.to_dict())


def test_anytime_explains_in_every_true_model(usar: ConformantExplainer) -> None:
    possible = usar.amrp.possible
    for realised, _ in completions(possible):
        answers = {p.feature: p.feature in realised for p in possible}
        result = usar.anytime(answers)
        assert len(result.questions) <= len(possible)
        assert all(answers[p.feature] == a for p, a in result.questions)
        known = [e.edit for e in result.edits]
        # The person's true model is this completion; the edits must explain the plan there.
        truth = usar.amrp.completion([], realised)
        updated = AnnotatedMRP(truth, ()).completion(known, ())
        assert is_complete(updated, ()).complete, (realised, result.edits)


def test_annotation_errors_name_the_line(usar: ConformantExplainer) -> None:
    domain = usar.amrp.mrp.human_domain
    with pytest.raises(InputError, match="f:2: unknown action 'fly'"):
        parse_annotations("0.5 init (at p1)\n0.5 precondition fly (at ?x)\n", domain, "f")
    with pytest.raises(InputError, match="not in \\[0, 1\\]"):
        parse_annotations("1.5 init (at p1)", domain)
    with pytest.raises(InputError, match="not a parameter"):
        parse_annotations("0.5 precondition move (at ?x)", domain)
    with pytest.raises(InputError, match="expected"):
        parse_annotations("maybe init at p1", domain)
    with pytest.raises(InputError, match="already part of the known"):
        AnnotatedMRP(usar.amrp.mrp, parse_annotations("0.5 init (at p1)", domain))


TINY = """(define (domain tiny) (:requirements :strips)
  (:predicates (p) (q) (g))
  (:action a :parameters () :precondition () :effect (p))
  (:action b :parameters () :precondition (p) :effect (q))
  (:action c :parameters () :precondition (q) :effect (g)))"""
TINY_PROBLEM = "(define (problem t) (:domain tiny) (:init) (:goal (g)))"


def test_explanation_against_an_empty_human_model() -> None:
    domain, problem = parse_domain(TINY), parse_problem(TINY_PROBLEM)
    human, human_problem = empty_model(domain, problem)
    mrp = make_mrp(domain, problem, human, human_problem)
    explanation = Explainer(mrp).explain("mce")
    assert explanation.verified and explanation.complete
    assert is_complete(mrp, explanation.edits).complete
    # Nothing smaller works: drop any one edit and the plan is no longer explained.
    for edit in explanation.edits:
        rest = [e for e in explanation.edits if e != edit]
        assert is_complete(mrp, rest).complete is False


def test_cli_conformant_json_and_missing_annotations(capsys: pytest.CaptureFixture[str]) -> None:
    files = [str(USAR / n) for n in ("robot.pddl", "human.pddl", "problem.pddl")]
    extra = ["--plan", str(USAR / "plan.txt"), "--human-problem",
             str(USAR / "human-problem.pddl")]
    code = main(["explain", *files, *extra, "--type", "conformant", "--annotations",
                 str(USAR / "annotations.txt"), "--json"])
    payload = json.loads(capsys.readouterr().out)
    assert code == 0 and payload["size"] == 3 and payload["verified"] is True
    assert main(["explain", *files, *extra, "--type", "conformant"]) == 2
    assert "needs --annotations" in capsys.readouterr().err


def test_cli_anytime_reads_piped_answers_and_echoes_them(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    files = [str(USAR / n) for n in ("robot.pddl", "human.pddl", "problem.pddl")]
    extra = ["--plan", str(USAR / "plan.txt"), "--human-problem",
             str(USAR / "human-problem.pddl"), "--annotations", str(USAR / "annotations.txt")]
    monkeypatch.setattr("sys.stdin", io.StringIO("n\n" * 40))
    code = main(["explain", *files, *extra, "--type", "anytime"])
    captured = capsys.readouterr()
    assert code == 0 and "Anytime explanation:" in captured.out
    questions = [line for line in captured.err.splitlines() if line.startswith("Do you think")]
    assert questions and all(line.endswith("? n") for line in questions)  # one per line
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["explain", *files, *extra, "--type", "anytime"]) == 2
    assert "no answer on standard input" in capsys.readouterr().err
