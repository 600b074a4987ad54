"""Uncertain human models (book ch. 6): annotated models, completions and robustness.

Why: the robot rarely knows the person's model exactly. An *annotated* model is the part
it is sure of (a PDDL domain and problem) plus *possible* features, each with the
probability that the person believes it ("she may think ``clear_passage`` needs the
hand"). Its completions are the 2^k models obtained by realising a subset of the possible
features; the likelihood of one is the product of ``p`` for realised and ``1 - p`` for
unrealised features (book Def. 28).

Annotations are written one per line, in the vocabulary of the known domain::

    ; probability  kind            [action]        atom
    0.5            init                            (clear p1 p9)
    0.5            precondition    clear_passage   (hand_capable)
    0.3            add-effect      move            (visited ?y)

Kinds are ``precondition``, ``negative-precondition``, ``add-effect``, ``delete-effect``,
``init`` and ``goal``; action atoms use the action's own parameter names.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from xaip.errors import InputError
from xaip.planning.features import Edit, Feature, FeatureKind, model_features
from xaip.planning.features.apply import apply_edits
from xaip.planning.features.sentences import sentence
from xaip.planning.pddl.model import Atom, Domain, Problem
from xaip.reconcile.problem import MRP
from xaip.sidefiles import read_text

_K = FeatureKind
#: Possible features that make a model *more* permissive when realised (they go into
#: M_max); the others make it stricter (they go into M_min). Book §6, Prop. 7.
RELAXING_KINDS = frozenset({_K.ADD_EFFECT, _K.INIT})
STRICTER_KINDS = frozenset({_K.PRECONDITION, _K.NEGATIVE_PRECONDITION, _K.DELETE_EFFECT,
                            _K.GOAL})
_ACTION_KINDS = frozenset({_K.PRECONDITION, _K.NEGATIVE_PRECONDITION, _K.ADD_EFFECT,
                           _K.DELETE_EFFECT})
_LINE = re.compile(r"^\s*(?P<p>[0-9.]+)\s+(?P<kind>[a-z-]+)\s+(?:(?P<action>[^\s(]+)\s+)?"
                   r"\((?P<atom>[^()]*)\)\s*$")


@dataclass(frozen=True, order=True)
class Possible:
    """A feature the person may or may not believe, with the probability that they do."""

    feature: Feature
    probability: float
    #: ``file:line: `` of the annotation, for messages (not part of its identity).
    where: str = field(default="", compare=False, repr=False)

    @property
    def text(self) -> str:
        return sentence(self.feature)

    def to_dict(self) -> dict[str, Any]:
        return {"feature": self.feature.to_dict(), "text": self.text,
                "probability": self.probability}


def parse_annotations(text: str, domain: Domain, file: str = "<annotations>"
                      ) -> tuple[Possible, ...]:
    """Read possible features (module docstring format) against the known ``domain``."""
    actions = {a.name: a for a in domain.actions}
    out: list[Possible] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split(";", 1)[0].strip()
        if not line:
            continue
        where = f"{file}:{number}: "
        match = _LINE.match(line)
        if match is None:
            raise InputError(f"{where}expected 'PROBABILITY KIND [ACTION] (ATOM)', found "
                             f"'{line}'")
        try:
            probability = float(match["p"])
        except ValueError:
            raise InputError(f"{where}'{match['p']}' is not a probability") from None
        if not 0.0 <= probability <= 1.0:
            raise InputError(f"{where}probability {probability} is not in [0, 1]")
        try:
            kind = FeatureKind(match["kind"])
        except ValueError:
            raise InputError(f"{where}unknown kind '{match['kind']}'") from None
        words = match["atom"].split()
        if not words:
            raise InputError(f"{where}empty atom")
        atom = Atom(words[0], tuple(words[1:]))
        if kind in _ACTION_KINDS:
            name = match["action"]
            if name is None:
                raise InputError(f"{where}a {kind.value} annotation needs an action name")
            if name not in actions:
                raise InputError(f"{where}unknown action '{name}'")
            parameters = tuple(p.name for p in actions[name].parameters)
            unbound = [a for a in atom.args if a.startswith("?") and a not in parameters]
            if unbound:
                raise InputError(f"{where}'{unbound[0]}' is not a parameter of '{name}' "
                                 f"({' '.join(parameters) or 'none'})")
            feature = Feature(kind, name, parameters, atom)
        elif kind in (_K.INIT, _K.GOAL):
            if match["action"] is not None:
                raise InputError(f"{where}{kind.value} annotations take no action name")
            feature = Feature(kind, atom=atom)
        else:
            raise InputError(f"{where}kind '{kind.value}' cannot be annotated as possible")
        twice = next((p for p in out if p.feature == feature), None)
        if twice is not None:
            raise InputError(f"{where}'{sentence(feature)}' is annotated twice (first at "
                             f"{twice.where.rstrip(': ')})")
        out.append(Possible(feature, probability, where))
    return tuple(out)


def read_annotations(path: str | Path, domain: Domain) -> tuple[Possible, ...]:
    text = read_text(path, "annotations")  # limits, devices, FIFOs, UTF-8 at line:column
    return parse_annotations(text, domain, str(path))


def settle(possible: Iterable[Possible], told: Iterable[Any],
           answers: Iterable[tuple[Feature, bool]]) -> tuple[list[Edit], tuple[Possible, ...]]:
    """What a dialogue state stands for: the edits that turn the known human model into the
    state's known part, and the possible features still open.

    ``told`` holds labelled edits (``.edit``, ``.label``); ``answers`` the person's answers
    about possible features. Realised answers add their feature; telling a possible
    feature settles it (an ``add`` adds it, a ``remove-annot`` settles it as absent). This
    is the definition of the annotated model (book §6), shared by the explainer and the
    checker.
    """
    answered = dict(answers)
    told_by_feature = {t.edit.feature: t for t in told}
    edits: list[Edit] = []
    for feature, answer in sorted(answered.items()):
        if answer and feature not in told_by_feature:
            edits.append(Edit(feature, "add"))
    for feature, item in sorted(told_by_feature.items()):
        if item.edit.op == "add" or item.label == "remove-known" and \
                answered.get(feature) is None:
            edits.append(item.edit)
    settled = set(told_by_feature) | set(answered)
    return edits, tuple(p for p in possible if p.feature not in settled)


@dataclass(frozen=True)
class AnnotatedMRP:
    """An MRP whose human model is annotated: ``mrp.human_*`` is the known part."""

    mrp: MRP
    possible: tuple[Possible, ...]

    def __post_init__(self) -> None:
        known = model_features(self.mrp.human_domain, self.mrp.human_problem)
        clash = [p for p in self.possible if p.feature in known]
        if clash:
            raise InputError(f"{clash[0].where}'{clash[0].text}' is annotated as possible but "
                             "is already part of the known human model")

    @property
    def robot_features(self) -> frozenset[Feature]:
        return model_features(self.mrp.robot_domain, self.mrp.robot_problem)

    def robot_has(self, feature: Feature) -> bool:
        return feature in self.robot_features

    def known_model(self, known_edits: Iterable[Edit]) -> tuple[Domain, Problem]:
        """The known part updated by edits (added features become certain)."""
        domain, problem = apply_edits(
            self.mrp.human_domain, self.mrp.human_problem, list(known_edits),
            source_domain=self.mrp.robot_domain, source_problem=self.mrp.robot_problem)
        assert problem is not None
        return domain, problem

    def completion(self, known_edits: Iterable[Edit], realised: Iterable[Feature]
                   ) -> MRP:
        """The MRP whose human model is the known part + edits + ``realised`` features."""
        edits = [*known_edits, *(Edit(f, "add") for f in realised)]
        domain, problem = self.known_model(edits)
        return replace(self.mrp, human_domain=domain, human_problem=problem)


def likelihood(possible: Iterable[Possible], realised: frozenset[Feature]) -> float:
    """Book Def. 28: the probability of the completion that realises ``realised``."""
    value = 1.0
    for p in possible:
        value *= p.probability if p.feature in realised else 1.0 - p.probability
    return value


def completions(possible: tuple[Possible, ...]) -> Iterator[tuple[frozenset[Feature], float]]:
    """Every completion (realised features) with its likelihood."""
    for size in range(len(possible) + 1):
        for chosen in itertools.combinations(possible, size):
            realised = frozenset(p.feature for p in chosen)
            yield realised, likelihood(possible, realised)
