"""The message-conditioned step labeller: P(step looks explicable | step, context, messages).

Book §6.3: with no model of the person, learn ``L : F x 2^M -> {explicable, inexplicable}``
from people's labels, where a step's label may change once messages were given. Features of
a step are the explicable family's CRF step features (:func:`xaip.explicable.crf.
step_features`: schema, name, arguments, previous and next step, position), plus which
schemas come earlier and later in the plan (a tuck is explicable when a move follows); the
messages enter as one indicator per shown message and one per (message, step feature)
pair, so a message can make one kind of step explicable and leave the others alone; each
pair of shown messages adds the same again, so two messages can be needed *together*.

The model is scikit-learn's logistic regression (L-BFGS, fixed parameters: the same data
gives the same labeller). All features are 0/1 indicators, so a step's log-odds under a
message set is its log-odds without messages plus one term per shown message and one per
shown pair (:meth:`MessageLabeller.contributions`); the search adds those terms, while
:meth:`MessageLabeller.probabilities` -- what the checker calls -- builds the feature
rows and asks scikit-learn.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from xaip.errors import InputError
from xaip.modelfree.data import Record

#: A step is labelled explicable when its probability is at least this.
THRESHOLD = 0.5
#: Step features that messages interact with (prefixes of the feature strings).
#: Schema-level only: a message is about a kind of step, not about particular objects
#: (and object-level pairs multiplied the features for no accuracy on held-out plans).
_INTERACTING = ("schema=", "prev.schema=", "next.schema=", "earlier.schema=",
                "later.schema=", "first", "last")
#: Fixed training parameters (L-BFGS; C: L2 strength suited to a few hundred plans).
PARAMS: dict[str, Any] = {"C": 1.0, "max_iter": 2000, "solver": "lbfgs"}


def _sklearn() -> tuple[Any, Any]:
    try:
        from sklearn.feature_extraction import DictVectorizer  # type: ignore[import-untyped]
        from sklearn.linear_model import LogisticRegression  # type: ignore[import-untyped]
    except ImportError:  # pragma: no cover - the learn extra is installed in CI
        raise InputError("model-free explanations need scikit-learn: pip install "
                         "'xaip[learn]'") from None
    return DictVectorizer, LogisticRegression


def step_context(names: Sequence[str]) -> list[list[str]]:
    """Each step's features without messages (module docstring)."""
    from xaip.explicable.crf import step_features

    base = step_features(list(names))
    schemas = [n.split()[0] for n in names]
    out = []
    for i, features in enumerate(base):
        extra = {f"earlier.schema={s}" for s in schemas[:i]}
        extra |= {f"later.schema={s}" for s in schemas[i + 1:]}
        if names[i] in names[:i]:
            extra.add("repeated")
        out.append([*features, *sorted(extra)])
    return out


def message_features(context: Sequence[str], message: str) -> list[str]:
    """The features one shown message adds to a step with features ``context``."""
    return [f"msg={message}", *(f"msg={message}|{f}" for f in context
                                if f.startswith(_INTERACTING))]


def pair_features(context: Sequence[str], first: str, second: str) -> list[str]:
    """The features two shown messages add together (``first < second``): a step may need
    both ("move needs the torso crouched" helps only with "tucking crouches")."""
    pair = f"pair={first}+{second}"
    return [pair, *(f"{pair}|{f}" for f in context if f.startswith(_INTERACTING))]


def _row(context: Sequence[str], shown: Iterable[str]) -> dict[str, int]:
    row = dict.fromkeys(context, 1)
    ordered = sorted(set(shown))
    for k, message in enumerate(ordered):
        row.update(dict.fromkeys(message_features(context, message), 1))
        for other in ordered[k + 1:]:
            row.update(dict.fromkeys(pair_features(context, message, other), 1))
    return row


class MessageLabeller:
    """Logistic regression over step, context and message features (module docstring)."""

    def __init__(self, threshold: float = THRESHOLD) -> None:
        if not 0.0 < threshold < 1.0:
            raise InputError(f"the threshold must be between 0 and 1, not {threshold}")
        self.threshold = threshold
        self._vectorizer: Any = None
        self._model: Any = None

    def fit(self, records: Sequence[Record]) -> MessageLabeller:
        rows, targets = [], []
        for record in records:
            for context, label in zip(step_context(record.plan), record.labels, strict=True):
                rows.append(_row(context, sorted(record.messages)))
                targets.append(bool(label))
        if len(set(targets)) < 2:
            raise InputError("the labelled plans need both explicable and inexplicable "
                             "steps to learn from")
        vectorizer_type, model_type = _sklearn()
        from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

        self._vectorizer = vectorizer_type(sparse=True, sort=True)
        matrix = self._vectorizer.fit_transform(rows)
        # One BLAS thread: on a few hundred features L-BFGS's threads only spin (measured:
        # ten times the CPU for the same model on two busy cores).
        with threadpool_limits(limits=1):
            self._model = model_type(**PARAMS).fit(matrix, targets)
        return self

    @property
    def trained(self) -> bool:
        return self._model is not None

    def _positive(self) -> int:
        return list(self._model.classes_).index(True)

    def probabilities(self, plan: Sequence[str], subsets: Sequence[Iterable[str]]
                      ) -> list[list[float]]:
        """P(explicable) of every step of ``plan`` under each message set in ``subsets``
        (rows built from the features, scored by scikit-learn)."""
        if not self.trained:
            raise InputError("the model-free labeller is not trained")
        contexts = step_context(plan)
        if not plan:
            return [[] for _ in subsets]
        rows = [_row(c, sorted(s)) for s in subsets for c in contexts]
        if not rows:
            return []
        scores = self._model.predict_proba(self._vectorizer.transform(rows))[:, self._positive()]
        n = len(plan)
        return [[float(p) for p in scores[k * n:(k + 1) * n]] for k in range(len(subsets))]

    def label_many(self, cases: Sequence[tuple[Sequence[str], Iterable[str]]]
                   ) -> list[list[bool]]:
        """:meth:`label` for many (plan, messages shown) pairs in one scikit-learn call."""
        if not self.trained:
            raise InputError("the model-free labeller is not trained")
        rows = [_row(c, sorted(shown)) for plan, shown in cases for c in step_context(plan)]
        if not rows:
            return [[] for _ in cases]
        scores = self._model.predict_proba(self._vectorizer.transform(rows))[:, self._positive()]
        out, at = [], 0
        for plan, _ in cases:
            out.append([float(p) >= self.threshold for p in scores[at:at + len(plan)]])
            at += len(plan)
        return out

    def label(self, plan: Sequence[str], shown: Iterable[str]) -> list[bool]:
        """Explicable or not, per step, after the messages ``shown``."""
        return [p >= self.threshold for p in self.probabilities(plan, [tuple(shown)])[0]]

    def contributions(self, plan: Sequence[str], messages: Sequence[str]
                      ) -> tuple[list[float], list[list[float]],
                                 dict[tuple[int, int], list[float]]]:
        """Per step, the log-odds without messages; per message the log-odds it adds to
        each step; per pair of messages (indices ``j < l`` into ``messages``) what the two
        add together beyond that (only pairs the model has weights for). Exact for this
        model: every feature is a 0/1 indicator."""
        if not self.trained:
            raise InputError("the model-free labeller is not trained")
        index = self._vectorizer.vocabulary_
        weights = self._model.coef_[0]
        sign = 1.0 if self._positive() == 1 else -1.0
        intercept = float(self._model.intercept_[0])

        def total(features: Iterable[str]) -> float:
            return sum(float(weights[index[f]]) for f in features if f in index)

        contexts = step_context(plan)
        base = [sign * (intercept + total(c)) for c in contexts]
        deltas = [[sign * total(message_features(c, m)) for c in contexts] for m in messages]
        pairs: dict[tuple[int, int], list[float]] = {}
        for j, first in enumerate(messages):
            for k in range(j + 1, len(messages)):
                a, b = sorted((first, messages[k]))
                row = [sign * total(pair_features(c, a, b)) for c in contexts]
                if any(row):
                    pairs[(j, k)] = row
        return base, deltas, pairs

    def logit_threshold(self) -> float:
        import math

        return math.log(self.threshold / (1.0 - self.threshold))


@dataclass(frozen=True)
class Accuracy:
    """How well the labeller predicts people's labels on records it was not trained on.

    ``steps``/``plans`` count held-out steps and plans; ``step_accuracy`` is the share of
    steps labelled right, ``plan_accuracy`` the share of plans whose every step is right,
    ``verdict_accuracy`` the share of plans whose "every step explicable" verdict (what the
    search relies on) is right; ``baseline`` the step accuracy of always answering the
    training data's commoner label."""

    steps: int
    plans: int
    step_accuracy: float | None
    plan_accuracy: float | None
    verdict_accuracy: float | None
    explicable_precision: float | None
    explicable_recall: float | None
    baseline: float | None
    trained_on: int

    def to_dict(self) -> dict[str, Any]:
        return {"held_out_steps": self.steps, "held_out_plans": self.plans,
                "step_accuracy": self.step_accuracy, "plan_accuracy": self.plan_accuracy,
                "verdict_accuracy": self.verdict_accuracy,
                "explicable_precision": self.explicable_precision,
                "explicable_recall": self.explicable_recall,
                "majority_baseline": self.baseline, "trained_on_plans": self.trained_on}


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def accuracy(labeller: MessageLabeller, training: Sequence[Record],
             held_out: Sequence[Record]) -> Accuracy:
    """The labeller's :class:`Accuracy` on ``held_out`` (``training`` gives the baseline)."""
    right = plans_right = verdicts = steps = 0
    true_pos = predicted_pos = actual_pos = 0
    guesses = labeller.label_many([(r.plan, r.messages) for r in held_out])
    for record, guess in zip(held_out, guesses, strict=True):
        hits = [g == t for g, t in zip(guess, record.labels, strict=True)]
        right += sum(hits)
        steps += len(hits)
        plans_right += all(hits)
        verdicts += all(guess) == all(record.labels)
        true_pos += sum(g and t for g, t in zip(guess, record.labels, strict=True))
        predicted_pos += sum(guess)
        actual_pos += sum(record.labels)
    trained = [label for r in training for label in r.labels]
    commoner = sum(trained) * 2 >= len(trained)
    baseline_right = sum(label == commoner for r in held_out for label in r.labels)
    return Accuracy(steps, len(held_out), _share(right, steps), _share(plans_right,
                    len(held_out)), _share(verdicts, len(held_out)),
                    _share(true_pos, predicted_pos), _share(true_pos, actual_pos),
                    _share(baseline_right, steps), len(training))
