"""A CRF sequence labeller for the labelling model (X04, book ch. 3 §3.3).

People label a step by what it does *in context*: a move right after a pick-up is
"leaving the kitchen", the same move later is "going to the booth". A per-action
majority vote cannot see that; a linear-chain CRF can, through features of the
neighbouring steps and label-to-label transitions. We use ``python-crfsuite`` (the
library under ``sklearn-crfsuite``) directly, which keeps the dependency to one small
wheel with no scientific stack.

Each step's features: its schema and full name, each argument (object and, when known,
its type), the previous and next schemas and names, and where it stands in the plan
(first, last, relative quarter). A step's label *set* becomes one CRF label (the sorted
tags joined by ``+``; ``-`` for an unlabelled step), so the model predicts sets whole.

Training is deterministic: L-BFGS with fixed parameters, single-threaded in crfsuite.
The tags of a step depend on its neighbours, so the labeller is not Markov
(``markov = False``): :func:`xaip.explicable.labels.synthesize` then completes its climb
by selection among the robot's cheapest plans instead of a search over states.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol

import pycrfsuite  # type: ignore[import-untyped]

from xaip.errors import InputError
from xaip.explicable.labels import Label
from xaip.planning.task import GroundAction
from xaip.sidefiles import read_bytes

NONE = "-"
"""The CRF label of a step with no tag (tags never contain ``+`` or equal ``-``)."""

PARAMS: dict[str, float | int | bool] = {
    "c1": 0.05,  # L1: drops features that never help (one-off objects)
    "c2": 0.01,  # L2: keeps weights small on tiny datasets
    "max_iterations": 200,
    "feature.possible_transitions": True,
}
"""Fixed training parameters (L-BFGS): the same data always gives the same model."""

MIN_PLANS = 5
"""Below this many annotated plans the CLI's ``auto`` choice uses the majority labeller:
a CRF on a handful of plans mostly learns their positions."""


def normalise(step: str) -> str:
    return " ".join(step.strip("() ").lower().split())


def encode(tags: Sequence[str] | Label) -> str:
    for tag in tags:
        if not tag or "+" in tag or tag == NONE:
            raise InputError(f"a label must be non-empty, without '+', and not '-': {tag!r}")
    return "+".join(sorted(tags)) or NONE


def decode(label: str) -> Label:
    return frozenset() if label == NONE else frozenset(label.split("+"))


def step_features(names: Sequence[str], types: Mapping[str, str] | None = None
                  ) -> list[list[str]]:
    """One feature list per step of a plan given by its (normalised) step names."""
    types = types or {}
    n = len(names)
    out = []
    for i, name in enumerate(names):
        schema, *args = name.split()
        features = ["bias", f"schema={schema}", f"name={name}",
                    f"quarter={4 * i // n}" if n else "quarter=0"]
        for j, arg in enumerate(args):
            features.append(f"arg{j}={arg}")
            if arg in types:
                features.append(f"arg{j}:type={types[arg]}")
        for offset, tag in ((-1, "prev"), (1, "next")):
            k = i + offset
            if 0 <= k < n:
                features += [f"{tag}.schema={names[k].split()[0]}", f"{tag}.name={names[k]}"]
            else:
                features.append("first" if offset < 0 else "last")
        out.append(features)
    return out


class NamedTagger(Protocol):
    """A labeller that also labels plans given by step names (as in the datasets)."""

    def tag_names(self, names: Sequence[str]) -> list[Label]: ...


class CRFLabeller:
    """A linear-chain CRF over plan steps, trained on annotated plans."""

    markov = False

    def __init__(self, types: Mapping[str, str] | None = None) -> None:
        self.types = dict(types or {})
        self.model: bytes | None = None
        self._tagger: pycrfsuite.Tagger | None = None
        self._cache: dict[tuple[str, ...], list[Label]] = {}

    def fit(self, examples: Sequence[tuple[Sequence[str], Sequence[Sequence[str]]]]
            ) -> CRFLabeller:
        """``examples``: (plan step names, label list per step) pairs."""
        trainer = pycrfsuite.Trainer(algorithm="lbfgs", verbose=False)
        trainer.set_params(PARAMS)
        usable = 0
        for steps, labels in examples:
            if len(steps) != len(labels):
                raise InputError("each annotated plan needs one label list per step")
            if steps:
                names = [normalise(s) for s in steps]
                trainer.append(step_features(names, self.types), [encode(t) for t in labels])
                usable += 1
        if not usable:
            raise InputError("the CRF labeller needs at least one non-empty annotated plan")
        handle, path = tempfile.mkstemp(suffix=".crfsuite")
        os.close(handle)
        try:
            trainer.train(path)
            self.model = Path(path).read_bytes()
        finally:
            Path(path).unlink(missing_ok=True)
        return self._open()

    def _open(self) -> CRFLabeller:
        assert self.model is not None
        tagger = pycrfsuite.Tagger()
        tagger.open_inmemory(self.model)
        self._tagger = tagger
        self._cache.clear()
        return self

    def save(self, path: str | Path) -> None:
        if self.model is None:
            raise InputError("the CRF labeller is not trained")
        Path(path).write_bytes(self.model)

    @classmethod
    def load(cls, path: str | Path, types: Mapping[str, str] | None = None) -> CRFLabeller:
        labeller = cls(types)
        try:
            labeller.model = read_bytes(path, "model")
            return labeller._open()
        except (OSError, ValueError) as error:
            raise InputError(f"cannot read a CRF model from {path}: {error}") from None

    def tag_names(self, names: Sequence[str]) -> list[Label]:
        """Labels for a plan given by step names (the dataset's form)."""
        key = tuple(normalise(s) for s in names)
        if not key:
            return []
        cached = self._cache.get(key)
        if cached is None:
            if self._tagger is None:
                raise InputError("the CRF labeller is not trained")
            cached = [decode(y) for y in self._tagger.tag(step_features(key, self.types))]
            if len(self._cache) > 100_000:
                self._cache.clear()
            self._cache[key] = cached
        return list(cached)

    def label(self, steps: Sequence[GroundAction], states: Sequence[int | None]
              ) -> list[Label]:
        return self.tag_names([a.name for a in steps])


def object_types(objects: Sequence[object]) -> dict[str, str]:
    """Object → type from a PDDL problem's typed objects (``name``, ``type`` fields)."""
    out = {}
    for obj in objects:
        name, kind = getattr(obj, "name", None), getattr(obj, "type", None)
        if isinstance(name, str) and isinstance(kind, str):
            out[name.lower()] = kind.lower()
    return out


def accuracy(labeller: NamedTagger,
             examples: Sequence[tuple[Sequence[str], Sequence[Sequence[str]]]]) -> float:
    """The share of steps whose predicted label set equals the annotated one."""
    right = total = 0
    for steps, labels in examples:
        for guess, truth in zip(labeller.tag_names(steps), labels, strict=True):
            right += guess == frozenset(truth)
            total += 1
    return right / total if total else 1.0
