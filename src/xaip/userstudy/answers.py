"""Each condition's answer: computed once, checked, kept, and shown the same to everyone.

Why once and before anyone arrives: every participant of a condition must see the same
answer (a study compares conditions, not planner runs), and a participant must not wait
for a search. ``xaip serve --study`` computes every condition's answer at start-up under the
condition's budget (``max_seconds``, ``max_nodes``), keeps it in the study's database
(``shown_answers``: the result's ``to_dict()`` JSON and the text shown), and reuses it after a
restart. An answer that is not ``verified`` (the family's independent checker did not
confirm it, or the budget ran out) is never shown to participants: the server refuses to
start, as any xaip command refuses to call an unchecked answer an answer.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from typing import Any

from xaip.errors import InputError, XaipError
from xaip.planning.semantics import step_number
from xaip.runtime import Budget
from xaip.userstudy.params import run_with_params
from xaip.userstudy.spec import NO_EDIT, Condition, Question, Study
from xaip.userstudy.store import StudyStore


class UnverifiedAnswer(XaipError):
    """A condition's answer was not verified; the study cannot show it (xaip serve exits 1)."""



@dataclass(frozen=True)
class Shown:
    """What a condition shows a participant: lines of text (possibly none)."""

    condition: str
    lines: tuple[str, ...]
    payload: dict[str, Any]

    def options(self, question: Question) -> tuple[str, ...]:
        """A question's options; an edit question's are the shown explanation's edits."""
        if question.kind != "edit":
            return question.options
        edits = self.payload.get("edits") or []
        return (*(str(edit.get("text", "")) for edit in edits), NO_EDIT)


def compute(condition: Condition) -> tuple[dict[str, Any], str]:
    """Run the condition's explainer on its files, else its bundled example: (payload,
    rendered text)."""
    from xaip.contract import explainers
    from xaip.render import render

    budget = Budget(max_seconds=condition.max_seconds, max_nodes=condition.max_nodes)
    name = condition.explainer or ""
    if condition.files or condition.params:
        clock = budget.start()  # reading the files (the robot's optimal plan) counts too
        mrp = _mrp(condition, budget) if condition.files else None
        result = run_with_params(name, condition.params, clock.remaining(), mrp)
    else:
        spec = {s.name: s for s in explainers()}[name]
        result = spec.example(budget)
    return result.to_dict(), str(render(result))


def _mrp(condition: Condition, budget: Budget) -> Any:
    """The reconciliation instance of the condition's own files, read as ``xaip explain``
    reads them (with the person's possible features for the uncertain types)."""
    from xaip.reconcile.annotated import AnnotatedMRP, read_annotations
    from xaip.reconcile.problem import load_mrp

    files = dict(condition.files)
    mrp = load_mrp(files["robot"], files["human"], files["problem"], files.get("plan"),
                   files.get("human_problem"), budget=budget)
    if "annotations" in files:
        return AnnotatedMRP(mrp, read_annotations(files["annotations"], mrp.human_domain))
    return mrp


def prepare(study: Study, store: StudyStore, log: Any = None) -> dict[str, Shown]:
    """Every condition's :class:`Shown`, computing (and keeping) the answers not yet kept;
    progress lines go to ``log`` (default: the standard error stream at call time)."""
    log = sys.stderr if log is None else log
    shown = {}
    for number, condition in enumerate(study.conditions, 1):
        if condition.explainer is None:
            shown[condition.name] = Shown(condition.name, (), {})
            continue
        kept = store.shown_answer(condition.name)
        if kept is None:
            print(f"xaip serve: computing condition {number}/{len(study.conditions)} "
                  f"({condition.name}: {condition.explainer}) ...", file=log, flush=True)
            payload, text = compute(condition)
            if payload.get("verified") is not True:
                raise UnverifiedAnswer(
                    f"condition {condition.name}: {condition.explainer}'s answer is "
                    f"{payload.get('status', 'unknown')} and not verified; raise its "
                    "max_seconds/max_nodes or choose another explainer")
            store.save_answer(condition.name, condition.explainer, payload, text)
            kept = store.shown_answer(condition.name)
            assert kept is not None
        shown[condition.name] = Shown(condition.name, _lines(condition, kept), kept["payload"])
        if any(q.kind == "edit" for q in condition.questions) and not kept["payload"].get(
                "edits"):
            raise InputError(f"condition {condition.name}: its edit question needs an "
                             "explanation with edits, and this one has none")
    return shown


def _lines(condition: Condition, kept: dict[str, Any]) -> tuple[str, ...]:
    """The lines a participant of ``condition`` sees: the whole rendered explanation, or
    only the plan's steps (numbered from 1), or nothing."""
    if condition.show == "explanation":
        lines = kept["text"].splitlines()
        return tuple(lines if condition.show_verdict else participant_lines(lines))
    if condition.show == "plan":
        plan = kept["payload"].get("plan")
        if not isinstance(plan, list):
            raise UnverifiedAnswer(f"condition {condition.name}: show = \"plan\" but "
                                   f"{condition.explainer}'s answer has no plan")
        return tuple(f"{step_number(i)}. {action}" for i, action in enumerate(plan))
    return ()


#: Lines of a rendered answer that report the work or the check, not the explanation:
#: "Effort: ...", "Verified independently: ...", "Status: ...", "Time: ...", a policy
#: summary's "Value check"/"Check on every reachable state" lines, "unverified: ...".
_VERDICT_LINE = re.compile(
    r"^\s*(effort|verified|not verified|unverified|status|time|value check|check on every|"
    r"checker|against the exact)\b", re.IGNORECASE)
#: A timing ("0.051 s", "8.96 ms/query"): a line reporting one is an effort line.
_TIMING = re.compile(r"\b\d+\.\d+ ?(s|ms)\b")
#: A verdict inside a line: "(verified)", ", verified" before a closing bracket.
_INLINE = re.compile(r" \((?:not )?verified\)|, (?:not )?verified(?=\):)", re.IGNORECASE)


def participant_lines(lines: list[str]) -> list[str]:
    """``lines`` without what a participant should not see unless the condition says so
    (``show_verdict = true``): how much work the answer took and what the checker said.
    The researcher still has both (``/study/admin/answers.json``); the server shows only
    verified answers anyway."""
    kept = []
    for line in lines:
        if _VERDICT_LINE.match(line) or _TIMING.search(line):
            continue
        kept.append(_INLINE.sub("", line))
    return kept


__all__ = ["Shown", "UnverifiedAnswer", "compute", "participant_lines", "prepare"]
