"""Acquiring a new concept when the vocabulary is incomplete (book §7.7), as a dialogue.

Why a pluggable teacher: teaching genuinely new concepts is open research; what xaip can
do is run the protocol the book proposes and let a person (at a terminal, in the
workbench) or a script (in tests) answer:

1. show the state where the foil fails and a *positive* state — one where the failing
   action succeeds — chosen as similar as possible to it (fewest differing concepts);
2. ask for a concept present in the positive state and absent in the failing one; the
   teacher answers with a :class:`~xaip.concepts.vocabulary.Concept` (a function, or one
   learned from examples with :func:`xaip.concepts.learn.learn_concept`), or ``None``;
3. show more positive states and ask the teacher whether the concept holds there; a "no"
   means the concept cannot be the precondition, so ask again with that state;
4. explain again with the extended vocabulary.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from xaip.concepts.explain import why_not
from xaip.concepts.results import INVALID_FOIL, Query, WhyNot
from xaip.concepts.sampling import sample_stream
from xaip.concepts.simulator import run_trace
from xaip.concepts.vocabulary import Concept, Vocabulary
from xaip.errors import InputError
from xaip.runtime import Status, get_executor


class Teacher(Protocol):
    """Who answers the dialogue's questions."""

    def new_concept(self, failing: Hashable, positive: Hashable, action: str) -> Concept | None:
        """A concept true in ``positive`` and false in ``failing`` (or ``None``: give up)."""
        ...

    def holds(self, concept: str, state: Hashable) -> bool:
        """Whether ``concept`` holds in ``state`` (the teacher's own judgement)."""
        ...


@dataclass(frozen=True)
class Teaching:
    """The dialogue and the explanation it ends with."""

    final: WhyNot
    added: tuple[str, ...]
    questions: int
    rejected: tuple[str, ...]
    status: Status
    seconds: float
    stats: Mapping[str, int | float]
    verified: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"added": list(self.added), "questions": self.questions,
                "rejected": list(self.rejected), "final": self.final.to_dict(),
                "status": str(self.status), "verified": self.verified,
                "seconds": self.seconds, "stats": dict(self.stats)}


def _distance(vocab: Vocabulary, a: Hashable, b: Hashable) -> int:
    return bin(vocab.truth_mask(a) ^ vocab.truth_mask(b)).count("1")


def positive_states(query: Query, result: WhyNot, count: int = 200,
                    seed: int = 0) -> list[Hashable]:
    """States near the plan and foil where the failing action succeeds, the most similar
    to the failing state first."""
    if result.foil_outcome != INVALID_FOIL or result.action is None:
        raise InputError("new concepts are taught for a foil with a failing action (or one "
                         "that misses the goal)")
    assert result.action is not None
    plan, foil = run_trace(query.sim, query.plan), run_trace(query.sim, query.foil)
    starts = tuple(dict.fromkeys((*plan.states, *foil.states)))
    stream = sample_stream(query.sim, starts, (result.action,), seed, get_executor("serial"))
    found = list(dict.fromkeys(s for _, (s, out) in zip(range(count), stream, strict=False)
                               if out[0] is not None))
    failing = foil.final
    return sorted(found, key=lambda s: _distance(query.vocabulary, s, failing))


def teach(query: Query, result: WhyNot, teacher: Teacher, *, confirmations: int = 5,
          attempts: int = 3, seed: int = 0, **options: Any) -> Teaching:
    """Run the dialogue for an incomplete ``result``; ``options`` go to
    :func:`~xaip.concepts.why_not` for the final explanation."""
    started = time.perf_counter()
    if not result.incomplete:
        raise InputError("the vocabulary is not incomplete for this foil: nothing to teach")
    positives = positive_states(query, result, seed=seed)
    if not positives:
        raise InputError("no state where the failing action succeeds was found near the plan")
    failing = run_trace(query.sim, query.foil).final
    assert result.action is not None
    questions, rejected, shown = 0, [], positives[0]
    concept: Concept | None = None
    for _ in range(attempts):
        questions += 1
        concept = teacher.new_concept(failing, shown, result.action)
        if concept is None:
            break
        counter = next((s for s in positives[1:1 + confirmations]
                        if not teacher.holds(concept.name, s)), None)
        questions += confirmations if counter is None else positives.index(counter)
        if counter is None and concept.truth(shown) and not concept.truth(failing):
            break
        rejected.append(concept.name)
        shown, concept = counter if counter is not None else shown, None
    if concept is None:
        final = result
        added: tuple[str, ...] = ()
    else:
        vocab = Vocabulary((*query.vocabulary.concepts, concept))
        final = why_not(query.sim, query.plan, query.foil, vocab, seed=seed, **options)
        added = (concept.name,)
    return Teaching(final, added, questions, tuple(rejected), final.status,
                    time.perf_counter() - started,
                    {"questions": questions, "positives_shown": min(len(positives),
                                                                     confirmations + 1)},
                    final.verified)


Ask = Callable[[str], str]


def ask_terminal(prompt: str) -> str:
    """Ask on standard error, read one line from standard input (EOF: bad input)."""
    print(prompt, end="", file=sys.stderr, flush=True)
    line = sys.stdin.readline()
    if not line:
        raise InputError("the teaching dialogue needs answers on standard input")
    if not sys.stdin.isatty():
        print(line.strip(), file=sys.stderr)  # a piped answer is not echoed: show it
    return line.strip()


class TerminalTeacher:
    """A person at a terminal: names the concept, then labels example states (shown as
    level text), from which the concept is learned (:func:`~xaip.concepts.learn.
    learn_concept` on :func:`~xaip.concepts.learn.grid_features`)."""

    def __init__(self, sim: Any, pool: Sequence[Hashable], examples: int = 12,
                 ask: Ask = ask_terminal, seed: int = 0) -> None:
        self.sim, self.pool, self.examples, self.ask, self.seed = sim, pool, examples, ask, seed

    def _show(self, state: Hashable) -> str:
        show = getattr(self.sim, "show", None)
        return show(state) if show is not None else repr(state)

    def _yes(self, concept: str, state: Hashable) -> bool:
        answer = self.ask(f"\n{self._show(state)}\nDoes `{concept}` hold here? [y/n] ")
        return answer.lower() in ("y", "yes", "true", "1")

    def new_concept(self, failing: Hashable, positive: Hashable, action: str) -> Concept | None:
        from xaip.concepts.learn import grid_features, learn_concept

        name = self.ask(f"\n`{action}` fails here:\n{self._show(failing)}\nbut works here:\n"
                        f"{self._show(positive)}\nName a concept true in the second state and "
                        "false in the first (empty: stop): ").strip()
        if not name:
            return None
        chosen = random.Random(self.seed).sample(list(self.pool),
                                                 min(self.examples, len(self.pool)))
        labelled = [(positive, True), (failing, False)]
        labelled += [(s, self._yes(name, s)) for s in chosen]
        learned = learn_concept(name, [s for s, y in labelled if y],
                                [s for s, y in labelled if not y],
                                grid_features(self.sim.level.width), holdout=0.0)
        return learned.concept

    def holds(self, concept: str, state: Hashable) -> bool:
        return self._yes(concept, state)
