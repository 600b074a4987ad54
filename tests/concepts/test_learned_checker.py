"""Issue 21: with learned concepts, "the vocabulary is incomplete" caused by a classifier
error at the failing state is refuted by the checker's exact labels, not confirmed by the
classifier that produced it; where no exact labels exist, ``verified`` says what it means,
and uncertain failing-state labels are reported as uncertain."""

from __future__ import annotations

from dataclasses import replace

from xaip.concepts import Vocabulary, bundled, why_not
from xaip.concepts.check import check, shared_classifiers, verification
from xaip.concepts.results import Query
from xaip.concepts.simulator import run_trace
from xaip.concepts.vocabulary import Concept, negation
from xaip.render import render


def _mislabelling(reference: bool) -> tuple[Query, Vocabulary]:
    """The bundled switch foil with ``switch-on`` as a learned classifier that is right
    everywhere except at the failing state (where it says "on"): the search then finds no
    concept, the true answer is ``switch-on``."""
    query = bundled("sokoban-switch")
    failing = run_trace(query.sim, query.foil).final
    exact = query.vocabulary["switch-on"]

    def classifier(state: object) -> bool:
        return True if state == failing else exact.truth(state)

    learned = Concept("switch-on", classifier, exact.description, false_positive=0.05,
                      false_negative=0.05, simulate_noise=False,
                      reference=exact.test if reference else None)
    swap = {"switch-on": learned, "switch-off": negation(learned, "switch-off")}
    vocab = Vocabulary(tuple(swap.get(c.name, c) for c in query.vocabulary.concepts))
    return replace(query, vocabulary=vocab), vocab


def test_a_classifier_error_at_the_failing_state_is_refuted_with_exact_labels() -> None:
    query, vocab = _mislabelling(reference=True)
    result = why_not(query.sim, query.plan, query.foil, vocab)
    assert result.incomplete  # the search trusted the classifier at the failing state
    assert not result.verified
    report = check(query, result)
    assert report.ok is False and "switch-on" in report.details
    assert "labels the failing state wrongly" in report.details
    # the label that made the difference is reported as uncertain, in JSON and text
    payload = result.to_dict()
    assert {"concept": "switch-on", "label": True, "error_rate": 0.05} in \
        payload["uncertain_labels"]
    assert "unless a classifier mislabels the failing state" in result.text
    assert "`switch-on`" in result.text
    assert payload["verification"].startswith("not verified")


def test_without_exact_labels_verified_says_it_shares_the_classifier() -> None:
    query, vocab = _mislabelling(reference=False)
    assert shared_classifiers(vocab) == ("switch-on", "switch-off")
    result = why_not(query.sim, query.plan, query.foil, vocab)
    assert result.incomplete and result.verified  # nothing exact can refute it
    assert result.verification == verification(vocab)
    assert "own classifiers for switch-on, switch-off" in result.verification
    assert "not caught" in result.to_dict()["verification"]
    assert result.verification in render(result)


def test_exact_concepts_are_verified_with_exact_labels() -> None:
    query = bundled("sokoban-switch")
    result = why_not(query.sim, query.plan, query.foil, query.vocabulary)
    assert result.verified and result.concepts == ("switch-on",)
    assert result.verification == "confirmed with exact concept labels"
    assert result.uncertain_labels == ()  # noise-free concepts: every label is certain


def test_the_checker_runs_under_the_search_budget() -> None:
    from xaip.runtime import Budget

    query = bundled("sokoban-switch")
    result = why_not(query.sim, query.plan, query.foil, query.vocabulary,
                     budget=Budget(max_nodes=300))  # search 176, checker 406
    assert result.status == "found" and not result.verified
    assert result.verification.startswith("not verified: unverified: checker budget")
