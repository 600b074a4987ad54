"""The new-vocabulary dialogue with scripted teachers."""

from __future__ import annotations

from collections.abc import Hashable

import pytest

from xaip.concepts import INVALID, Concept, bundled, why_not
from xaip.concepts.teach import positive_states, teach
from xaip.errors import InputError
from xaip.runtime import Status


class Scripted:
    """Answers with the given concepts in turn and judges states by the true switch."""

    def __init__(self, *answers: Concept | None) -> None:
        self.answers = list(answers)
        self.shown: list[tuple[Hashable, Hashable, str]] = []

    def new_concept(self, failing: Hashable, positive: Hashable, action: str) -> Concept | None:
        self.shown.append((failing, positive, action))
        return self.answers.pop(0) if self.answers else None

    def holds(self, concept: str, state: Hashable) -> bool:
        return concept != "lucky" and bool(state.switch_on)  # type: ignore[attr-defined]


def incomplete():  # type: ignore[no-untyped-def]
    query = bundled("sokoban-switch", "switch-2")
    partial = query.vocabulary.without("switch-on", "switch-off")
    result = why_not(query.sim, query.plan, query.foil, partial, seed=0)
    assert result.incomplete
    return type(query)(query.sim, query.plan, query.foil, partial), result


def test_teaching_the_switch_completes_the_explanation() -> None:
    query, result = incomplete()
    lit = Concept("lit", lambda s: s.switch_on)  # type: ignore[attr-defined]
    teacher = Scripted(Concept("lucky", lambda s: True), lit)
    teaching = teach(query, result, teacher)
    failing, positive, action = teacher.shown[0]
    assert action == "push-down" and not failing.switch_on and positive.switch_on  # type: ignore[attr-defined]
    assert teaching.rejected == ("lucky",) and teaching.added == ("lit",)
    assert teaching.final.concepts == ("lit",) and teaching.status == Status.FOUND
    assert teaching.verified and teaching.to_dict()["final"]["concepts"] == ["lit"]


def test_a_teacher_who_gives_up_leaves_the_answer_incomplete() -> None:
    query, result = incomplete()
    teaching = teach(query, result, Scripted(None))
    assert teaching.added == () and teaching.final is result


def test_positive_states_come_most_similar_first() -> None:
    query, result = incomplete()
    states = positive_states(query, result)
    assert states and all(query.sim.step(s, "push-down") is not INVALID for s in states)
    with pytest.raises(InputError, match="not incomplete"):
        full = bundled("sokoban-switch")
        teach(full, why_not(full.sim, full.plan, full.foil, full.vocabulary), Scripted())


def test_terminal_teacher_learns_from_labels() -> None:
    from xaip.concepts.teach import TerminalTeacher

    query, result = incomplete()
    prompts: list[str] = []

    def ask(prompt: str) -> str:
        prompts.append(prompt)
        if prompt.rstrip().endswith("(empty: stop):"):
            return "lit"
        state = prompt.split("Does")[0]
        return "y" if "S" in state else "n"   # the person sees the lit switch (S)

    from xaip.concepts import random_walks

    pool = positive_states(query, result)[:20] + random_walks(
        query.sim, [query.sim.initial()], 30, seed=0)
    teacher = TerminalTeacher(query.sim, pool, ask=ask)
    teaching = teach(query, result, teacher)
    assert teaching.added == ("lit",) and teaching.final.concepts == ("lit",)
    assert teaching.final.verified and len(prompts) > 10


def test_cli_teach_with_piped_answers(monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    import io

    from xaip.cli import main
    from xaip.concepts.bundled import folder

    monkeypatch.setattr("sys.stdin", io.StringIO("\n"))  # the person stops at once
    code = main(["why-not", "sokoban-switch", "--teach", "--vocabulary",
                 str(folder() / "switch-incomplete.json")])
    out = capsys.readouterr().out
    assert code == 1 and "No new concept" in out and "incomplete" in out
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    code = main(["why-not", "sokoban-switch", "--teach", "--vocabulary",
                 str(folder() / "switch-incomplete.json")])
    assert code == 2 and "standard input" in capsys.readouterr().err
