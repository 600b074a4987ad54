"""A user study's file: conditions, questions, counterbalancing -- read and checked once.

Why a checked file: a study runs for days with people who cannot report a typo back. Every
key is checked when the server starts (``xaip serve --study``), and a bad one is a one-line
:class:`~xaip.errors.InputError` naming the key (``conditions[2].explainer: ...``), never a
page that breaks in front of participant 37.

TOML (read with :mod:`tomllib`) or JSON, same keys; see docs/userstudy.md for a full file.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from xaip.errors import InputError
from xaip.userstudy.params import check_params

#: Question kinds: ``plan`` is "which plan will the robot follow?" (options are plans),
#: ``attention`` a check with a ``correct`` option, ``edit`` "mark the wrong edit" (its
#: options are the edits of the explanation the condition shows, plus :data:`NO_EDIT`).
KINDS = ("text", "likert", "choice", "plan", "attention", "edit")
NO_EDIT = "none of them is wrong"
#: What a condition shows: the explanation (rendered text), only the robot's plan, or nothing.
SHOWS = ("explanation", "plan", "nothing")
ORDERS = ("random", "latin", "fixed")
#: Longest text of a free-text answer, in characters.
MAX_TEXT = 2000
BUNDLED = ("fetch", "concepts")
#: Explainers that run on the study's own files (``files``) instead of their bundled example.
ON_FILES = ("reconcile.mce", "reconcile.mme", "reconcile.approx", "reconcile.contrastive",
            "reconcile.conformant", "reconcile.conditional", "reconcile.anytime")
#: The uncertain-model types: their files include the person's possible features.
UNCERTAIN = ("reconcile.conformant", "reconcile.conditional", "reconcile.anytime")
#: The files of a model-reconciliation instance (``files`` keys), and which are required
#: (``annotations``: required by, and only for, the uncertain types).
FILE_KEYS = {"robot": True, "human": True, "problem": True, "plan": False,
             "human_problem": False, "annotations": False}
#: Seconds after a condition's time limit in which answers are still accepted (flagged
#: ``over_time``) when the study file gives no ``time_grace``: the page's own countdown
#: sends the answers at the limit, and this covers the network and a slow click.
DEFAULT_GRACE = 15.0


@dataclass(frozen=True)
class Question:
    """One question shown after a condition."""

    id: str
    kind: str
    text: str
    options: tuple[str, ...] = ()       # choice/attention: labels; plan: one plan per option
    scale: int = 5                      # likert: 5 or 7 points
    labels: tuple[str, str] = ("", "")  # likert: words at the low and high ends
    correct: str | None = None          # attention (and optionally choice/plan)
    required: bool = True


@dataclass(frozen=True)
class Condition:
    """One condition: what an explainer's answer shows, then the questions."""

    name: str
    explainer: str | None               # a registered explainer, or None (nothing computed)
    show: str
    intro: str = ""
    max_seconds: float = 20.0
    max_nodes: int = 2_000_000
    time_limit: float | None = None     # seconds a participant may spend (enforced)
    time_grace: float = DEFAULT_GRACE   # seconds after the limit still accepted
    show_verdict: bool = False          # show the renderer's effort/verified lines too
    #: The explainer's parameters (:mod:`xaip.userstudy.params`), checked and sorted.
    params: tuple[tuple[str, Any], ...] = ()
    questions: tuple[Question, ...] = ()
    #: The instance's files (absolute paths; see :data:`FILE_KEYS`), or none: the
    #: explainer's bundled example.
    files: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Study:
    """A whole study (see the module docstring)."""

    title: str
    consent: str
    instructions: str
    conditions: tuple[Condition, ...]
    order: str = "latin"
    seed: int = 0
    completion: str = "Thank you. Your completion code is below."
    source: str = ""
    extras: dict[str, Any] = field(default_factory=dict)

    def condition(self, name: str) -> Condition:
        for condition in self.conditions:
            if condition.name == name:
                return condition
        raise InputError(f"no condition {name!r} in the study")


def bundled_path(name: str) -> Path:
    """The file of a bundled study (``fetch`` or ``concepts``)."""
    if name not in BUNDLED:
        raise InputError(f"no bundled study {name!r} (bundled: {', '.join(BUNDLED)})")
    return Path(str(resources.files("xaip.userstudy") / "bundled" / f"{name}.toml"))


def load_study(where: str | Path) -> Study:
    """The study in ``where`` (a path, or a bundled study's name), checked."""
    text_where = str(where)
    path = bundled_path(text_where) if text_where in BUNDLED else Path(where)
    if not path.is_file():
        raise InputError(f"study file {text_where}: not found")
    try:
        raw = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"study file {text_where}: cannot read it ({error})") from None
    try:
        data = json.loads(raw) if path.suffix == ".json" else tomllib.loads(raw)
    except (ValueError, tomllib.TOMLDecodeError) as error:
        kind = "JSON" if path.suffix == ".json" else "TOML"
        first = str(error).splitlines()[0]
        raise InputError(f"study file {text_where}: not valid {kind}: {first}") from None
    return parse_study(data, source=str(path), folder=path.parent)


def parse_study(data: Any, source: str = "", folder: Path | None = None) -> Study:
    """A :class:`Study` from the file's decoded data; every key checked."""
    top = _table(data, "study file")
    _only(top, "", {"title", "consent", "instructions", "conditions", "questions",
                    "order", "seed", "completion"})
    conditions_raw = top.get("conditions")
    if not isinstance(conditions_raw, list) or not conditions_raw:
        raise InputError("conditions: a non-empty list of tables is required")
    shared = _questions(top.get("questions", []), "questions")
    for number, question in enumerate(shared):
        if question.kind == "edit":
            raise InputError(f"questions[{number}].kind: an edit question goes in the "
                             "questions of a condition that shows an explanation")
    conditions = tuple(_condition(item, f"conditions[{i}]", shared, folder or Path.cwd())
                       for i, item in enumerate(conditions_raw))
    names = [c.name for c in conditions]
    for name in names:
        if names.count(name) > 1:
            raise InputError(f"conditions: the name {name!r} is used twice")
    order = top.get("order", "latin")
    if order not in ORDERS:
        raise InputError(f"order: one of {', '.join(ORDERS)}, not {order!r}")
    seed = top.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise InputError(f"seed: a whole number, not {seed!r}")
    return Study(title=_text(top, "title", ""), consent=_text(top, "consent", ""),
                 instructions=_text(top, "instructions", ""), conditions=conditions,
                 order=order, seed=seed, source=source,
                 completion=_text(top, "completion", "", required=False)
                 or Study.completion)


def _condition(item: Any, where: str, shared: tuple[Question, ...], folder: Path
               ) -> Condition:
    from xaip.contract import explainers

    table = _table(item, where)
    _only(table, where, {"name", "explainer", "show", "intro", "max_seconds", "max_nodes",
                         "time_limit", "time_grace", "show_verdict", "params", "questions",
                         "files"})
    name = _text(table, "name", where)
    if not name.replace("-", "").replace("_", "").isalnum():
        raise InputError(f"{where}.name: letters, digits, - and _ only, not {name!r}")
    explainer = table.get("explainer")
    show = table.get("show", "explanation" if explainer else "nothing")
    if show not in SHOWS:
        raise InputError(f"{where}.show: one of {', '.join(SHOWS)}, not {show!r}")
    if explainer is not None:
        known = [spec.name for spec in explainers()]
        if explainer not in known:
            raise InputError(f"{where}.explainer: no explainer {explainer!r} "
                             "(xaip explainers lists them)")
    elif show != "nothing":
        raise InputError(f"{where}.show: {show!r} needs an explainer")
    seconds = _number(table, "max_seconds", where, 20.0)
    nodes = _number(table, "max_nodes", where, 2_000_000)
    if int(nodes) != nodes:
        raise InputError(f"{where}.max_nodes: a whole number, not {nodes!r}")
    limit = table.get("time_limit")
    if limit is not None:
        limit = _number(table, "time_limit", where, 0.0)
    grace = table.get("time_grace", DEFAULT_GRACE)
    if "time_grace" in table:
        if limit is None:
            raise InputError(f"{where}.time_grace: goes with a time_limit")
        if isinstance(grace, bool) or not isinstance(grace, int | float) or not (
                0 <= grace < float("inf")):
            raise InputError(f"{where}.time_grace: a number of seconds >= 0, not {grace!r}")
    verdict = table.get("show_verdict", False)
    if not isinstance(verdict, bool):
        raise InputError(f"{where}.show_verdict: true or false, not {verdict!r}")
    if verdict and show != "explanation":
        raise InputError(f"{where}.show_verdict: goes with show = \"explanation\"")
    files = _files(table.get("files"), explainer, f"{where}.files", folder)
    params = check_params(table.get("params"), explainer, f"{where}.params")
    if explainer == "reconcile.contrastive" and files and "foils" not in dict(params):
        raise InputError(f"{where}.params.foils: reconcile.contrastive on the study's own "
                         "files needs its foils (the bundled example's do not apply)")
    own = _questions(table.get("questions", []), f"{where}.questions")
    for number, question in enumerate(own):
        if question.kind == "edit" and not (show == "explanation" and explainer
                                            and explainer.startswith("reconcile.")):
            raise InputError(f"{where}.questions[{number}].kind: an edit question needs a "
                             "reconcile.* explainer with show = \"explanation\"")
    questions = shared + own
    if not questions:
        raise InputError(f"{where}.questions: no questions (for this condition nor the study)")
    ids = [q.id for q in questions]
    for qid in ids:
        if ids.count(qid) > 1:
            raise InputError(f"{where}.questions: the id {qid!r} is used twice")
    return Condition(name=name, explainer=explainer, show=show,
                     intro=_text(table, "intro", where, required=False),
                     max_seconds=seconds, max_nodes=int(nodes), time_limit=limit,
                     time_grace=float(grace), show_verdict=verdict, params=params,
                     questions=questions, files=files)


def _files(raw: Any, explainer: str | None, where: str, folder: Path
           ) -> tuple[tuple[str, str], ...]:
    """The instance's files, relative to the study file's folder; each must exist."""
    if raw is None:
        return ()
    if explainer not in ON_FILES:
        raise InputError(f"{where}: instance files go with {', '.join(ON_FILES)} only "
                         f"(other explainers run their bundled example)")
    table = _table(raw, where)
    _only(table, where, set(FILE_KEYS))
    found = []
    for key, needed in FILE_KEYS.items():
        value = table.get(key)
        if value is None:
            if needed:
                raise InputError(f"{where}.{key}: a file is required")
            continue
        if not isinstance(value, str) or not value.strip():
            raise InputError(f"{where}.{key}: a file name, not {value!r}")
        path = (folder / value).resolve()
        if not path.is_file():
            raise InputError(f"{where}.{key}: no file {value} (relative to the study file)")
        found.append((key, str(path)))
    keys = {key for key, _ in found}
    if explainer in UNCERTAIN and "annotations" not in keys:
        raise InputError(f"{where}.annotations: {explainer} needs the person's possible "
                         "features (an annotations file)")
    if explainer not in UNCERTAIN and "annotations" in keys:
        raise InputError(f"{where}.annotations: only {', '.join(UNCERTAIN)} take an "
                         "annotations file")
    return tuple(found)


def _questions(raw: Any, where: str) -> tuple[Question, ...]:
    if not isinstance(raw, list):
        raise InputError(f"{where}: a list of tables, not {type(raw).__name__}")
    return tuple(_question(item, f"{where}[{i}]") for i, item in enumerate(raw))


def _question(item: Any, where: str) -> Question:
    table = _table(item, where)
    _only(table, where, {"id", "kind", "text", "options", "scale", "labels", "correct",
                         "required"})
    qid = _text(table, "id", where)
    if not qid.replace("_", "").replace("-", "").isalnum():
        raise InputError(f"{where}.id: letters, digits, - and _ only, not {qid!r}")
    kind = table.get("kind")
    if kind not in KINDS:
        raise InputError(f"{where}.kind: one of {', '.join(KINDS)}, not {kind!r}")
    text = _text(table, "text", where)
    required = table.get("required", True)
    if not isinstance(required, bool):
        raise InputError(f"{where}.required: true or false, not {required!r}")
    options: tuple[str, ...] = ()
    if kind in ("choice", "plan", "attention"):
        raw = table.get("options")
        if kind == "plan" and isinstance(raw, list):
            raw = [" ".join(o) if isinstance(o, list) and all(isinstance(a, str) for a in o)
                   else o for o in raw]
        if (not isinstance(raw, list) or len(raw) < 2
                or not all(isinstance(o, str) and o.strip() for o in raw)):
            what = "plans (each a list of actions or one line)" if kind == "plan" else "texts"
            raise InputError(f"{where}.options: a list of at least 2 non-empty {what}")
        if len(set(raw)) != len(raw):
            raise InputError(f"{where}.options: an option appears twice")
        options = tuple(raw)
    elif "options" in table:
        raise InputError(f"{where}.options: only choice, plan and attention questions "
                         "have options")
    correct = table.get("correct")
    if kind == "attention" and correct is None:
        raise InputError(f"{where}.correct: an attention check needs its correct option")
    if correct is not None:
        if kind not in ("choice", "plan", "attention"):
            raise InputError(f"{where}.correct: only choice, plan and attention questions "
                             "have a correct option")
        if isinstance(correct, list):
            correct = " ".join(str(a) for a in correct)
        if correct not in options:
            raise InputError(f"{where}.correct: {correct!r} is not one of the options")
    scale, labels = 5, ("", "")
    if kind == "likert":
        scale = table.get("scale", 5)
        if scale not in (5, 7) or isinstance(scale, bool):
            raise InputError(f"{where}.scale: 5 or 7, not {scale!r}")
        raw_labels = table.get("labels", ["", ""])
        if (not isinstance(raw_labels, list) or len(raw_labels) != 2
                or not all(isinstance(x, str) for x in raw_labels)):
            raise InputError(f"{where}.labels: two texts (the low and the high end)")
        labels = (raw_labels[0], raw_labels[1])
    else:
        for key in ("scale", "labels"):
            if key in table:
                raise InputError(f"{where}.{key}: only likert questions have a {key}")
    return Question(id=qid, kind=kind, text=text, options=options, scale=scale,
                    labels=labels, correct=correct, required=required)


def _table(item: Any, where: str) -> dict[str, Any]:
    if not isinstance(item, dict):
        raise InputError(f"{where}: a table of keys, not {type(item).__name__}")
    return item


def _only(table: dict[str, Any], where: str, allowed: set[str]) -> None:
    for key in table:
        if key not in allowed:
            prefix = f"{where}." if where else ""
            raise InputError(f"{prefix}{key}: unknown key (known: {', '.join(sorted(allowed))})")


def _text(table: dict[str, Any], key: str, where: str, required: bool = True) -> str:
    prefix = f"{where}." if where else ""
    value = table.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{prefix}{key}: a non-empty text is required")
    return value.strip()


def _number(table: dict[str, Any], key: str, where: str, default: float) -> float:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise InputError(f"{where}.{key}: a number above 0, not {value!r}")
    return float(value)


__all__ = ["BUNDLED", "DEFAULT_GRACE", "KINDS", "MAX_TEXT", "ORDERS", "SHOWS", "Condition",
           "Question", "Study", "bundled_path", "load_study", "parse_study"]
