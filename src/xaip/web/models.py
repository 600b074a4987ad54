"""The models the workbench works on: bundled examples by name, and uploads by content hash.

Why no paths: a request names a model by an identifier -- one of the fixed names of
:data:`BUNDLED` or ``u-`` plus the hash of an upload's content -- and never by a file
path, so no request can make the server read a file of its choosing. Uploads live in
memory only (at most ``Settings.max_models``, least recently used dropped first), each
file bounded in size, decoded as text (binary content is refused) and parsed before it is
kept, so that a bad file is reported at upload with its file, line and column.

A model is a set of files by *role*: ``domain`` and ``problem`` (always), and optionally
the robot's ``plan``, the person's ``human_domain`` and ``human_problem`` (for
reconciliation and explicable planning) and ``annotations`` (possible features of an
uncertain human model). File names shown to people are the role names, never the
uploader's names.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from xaip.errors import InputError
from xaip.web.problems import WebProblem, from_error

#: The roles a model's files can play, with the file name each is shown under.
ROLES: dict[str, str] = {
    "domain": "domain.pddl",
    "problem": "problem.pddl",
    "plan": "plan.txt",
    "human_domain": "human-domain.pddl",
    "human_problem": "human-problem.pddl",
    "annotations": "annotations.txt",
}

#: Files one upload may carry (one per role).
MAX_FILES = len(ROLES)


@dataclass(frozen=True)
class Bundled:
    """A bundled example: its files (relative to ``xaip/domains``) by role."""

    name: str
    title: str
    description: str
    files: Mapping[str, str]


#: The examples a request may name; nothing else under ``xaip/domains`` is reachable.
BUNDLED: tuple[Bundled, ...] = (
    Bundled("blocksworld", "Blocksworld, 5 blocks",
            "The classic stacking domain: plan, validate and see its landmarks.",
            {"domain": "blocksworld/domain.pddl", "problem": "blocksworld/problem-5.pddl"}),
    Bundled("fetch", "Fetch robot (book ch. 5)",
            "The robot tucks its arm before moving; the person does not know it must.",
            {"domain": "fetch/robot.pddl", "problem": "fetch/problem.pddl",
             "human_domain": "fetch/human.pddl"}),
    Bundled("usar", "Search and rescue (book ch. 6)",
            "A rescue robot explaining its plan to a commander whose model is uncertain "
            "(annotated possible features).",
            {"domain": "usar/robot.pddl", "problem": "usar/problem.pddl",
             "plan": "usar/plan.txt", "human_domain": "usar/human.pddl",
             "human_problem": "usar/human-problem.pddl",
             "annotations": "usar/annotations.txt"}),
    Bundled("airport", "Travel to the airport (TLdR)",
            "A probabilistic task whose optimal policy is summarised by its landmarks.",
            {"domain": "airport/domain.pddl", "problem": "airport/problem.pddl"}),
    Bundled("usar-balanced", "Search and rescue, balanced (book ch. 7)",
            "The rescue robot choosing between a detour the commander expects and a shorter "
            "plan it has to explain.",
            {"domain": "balanced/robot.pddl", "problem": "balanced/problem.pddl",
             "human_domain": "balanced/human.pddl",
             "human_problem": "balanced/human-problem.pddl"}),
    Bundled("restaurant-b2", "Restaurant robot, task B2 (book ch. 3)",
            "The robot's detour around a blocked passage surprises a person who thinks it "
            "is open.",
            {"domain": "restaurant/domain.pddl", "problem": "restaurant/b2.pddl",
             "human_domain": "restaurant/domain.pddl",
             "human_problem": "restaurant/b2-human.pddl"}),
    Bundled("delivery", "Delivery without the harbour road (D3WA+)",
            "A delivery truck on a map transcribed without the road into the harbour: the "
            "task has no plan, and the unsolvability page says why.",
            {"domain": "unsolvable/domain.pddl", "problem": "unsolvable/problem.pddl"}),
)
BUNDLED_NAMES = tuple(b.name for b in BUNDLED)


@dataclass(frozen=True)
class Model:
    """One model's texts by role, with parsers that report errors in the right file.

    Parsed files are kept: a model's texts never change, its domain and problem are
    immutable (frozen dataclasses of tuples), and every request on the model -- several
    parses each (a problem is checked against its domain) -- would otherwise read the
    same text again. Two worker threads may parse the same file at once; both get an equal
    result and one is kept (``dict.setdefault`` is atomic), so no lock is needed.
    """

    id: str
    title: str
    description: str
    texts: Mapping[str, str]
    bundled: bool
    _parsed: dict[tuple[str, ...], Any] = field(default_factory=dict, init=False,
                                                repr=False, compare=False)

    @property
    def sources(self) -> dict[str, str]:
        """File name -> text (what error pages show)."""
        return {ROLES[role]: text for role, text in self.texts.items()}

    def file_name(self, role: str) -> str:
        """The file name the text of ``role`` is shown and downloaded under."""
        return ROLES[role]

    def has(self, role: str) -> bool:
        return role in self.texts

    def fail(self, error: BaseException) -> WebProblem:
        """The error page's data for an error about this model's files."""
        return from_error(error, self.sources)

    def text(self, role: str) -> str:
        if role not in self.texts:
            raise WebProblem(400, f"model '{self.id}' has no {role.replace('_', ' ')} "
                                  f"file (it has: {', '.join(self.texts)})")
        return self.texts[role]

    def _kept(self, key: tuple[str, ...], parse: Callable[[], Any]) -> Any:
        """``parse()``'s result, parsed once per model (see the class docstring)."""
        found = self._parsed.get(key)
        if found is None:
            try:
                found = self._parsed.setdefault(key, parse())
            except InputError as error:
                raise self.fail(error) from None
        return found

    def domain(self, role: str = "domain") -> Any:
        from xaip.planning.pddl import parse_domain

        text = self.text(role)
        return self._kept((role,), lambda: parse_domain(text, ROLES[role]))

    def problem(self, role: str = "problem", domain_role: str = "domain") -> Any:
        """The problem, checked against its domain (a problem for another domain is bad
        input, reported with the offending name located in the file)."""
        from xaip.planning.pddl import check_problem, parse_problem

        domain = self.domain(domain_role)
        text = self.text(role)

        def checked() -> Any:
            problem = parse_problem(text, ROLES[role])
            check_problem(domain, problem)
            return problem

        return self._kept((role, domain_role), checked)

    def human_task(self) -> Any:
        """The person's own problem, checked against the human domain, or ``None`` when the
        person shares the robot's problem (what the library's front doors take)."""
        return (self.problem("human_problem", "human_domain")
                if self.has("human_problem") else None)

    def plan(self) -> Any:
        from xaip.planning.plans import parse_plan

        text = self.text("plan")
        return self._kept(("plan",), lambda: parse_plan(text, ROLES["plan"]))

    def summary(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "description": self.description,
                "bundled": self.bundled, "files": {role: ROLES[role] for role in self.texts}}

    def to_dict(self) -> dict[str, Any]:
        return {**self.summary(), "status": "ok", "texts": dict(self.texts)}


def _bundled_model(spec: Bundled) -> Model:
    root = Path(str(resources.files("xaip") / "domains"))
    texts = {role: (root / relative).read_text(encoding="utf-8")
             for role, relative in spec.files.items()}
    return Model(spec.name, spec.title, spec.description, texts, bundled=True)


def decode_upload(role: str, data: bytes, limit: int) -> str:
    """The text of one uploaded file, or a clear 4xx: too large, binary, or not UTF-8."""
    name = ROLES[role]
    if len(data) > limit:
        raise WebProblem(413, f"{name}: {len(data)} bytes is more than the {limit} bytes "
                              "allowed per file", kind="too_large")
    if b"\x00" in data:
        raise WebProblem(400, f"{name}: this is a binary file (it contains NUL bytes); "
                              "upload PDDL or plan text")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        raise WebProblem(400, f"{name}:{line}: not UTF-8 text (byte {error.start})") from None
    if not text.strip():
        raise WebProblem(400, f"{name}: the file is empty")
    return text


def validate_model(model: Model) -> None:
    """Parse every file of ``model`` so that errors show at upload, in their file."""
    model.problem()
    if model.has("plan"):
        model.plan()
    if model.has("human_domain"):
        model.problem("human_problem" if model.has("human_problem") else "problem",
                      "human_domain")
    elif model.has("human_problem"):
        raise WebProblem(400, "a human problem needs a human domain too")
    if model.has("annotations"):
        if not model.has("human_domain"):
            raise WebProblem(400, "annotations describe a human model: upload a human "
                                  "domain too")
        from xaip.reconcile.annotated import parse_annotations

        try:
            parse_annotations(model.text("annotations"), model.domain("human_domain"),
                              ROLES["annotations"])
        except InputError as error:
            raise model.fail(error) from None


class ModelStore:
    """Bundled models (fixed) and uploaded ones (in memory, bounded, least recent dropped)."""

    def __init__(self, max_models: int) -> None:
        self.max_models = max(1, max_models)
        root = Path(str(resources.files("xaip") / "domains"))
        # An example whose files are not in this checkout (a family still landing) is left out.
        self._bundled = {spec.name: spec for spec in BUNDLED
                         if all((root / f).is_file() for f in spec.files.values())}
        self._loaded: dict[str, Model] = {}
        self._uploads: OrderedDict[str, Model] = OrderedDict()
        self._lock = threading.Lock()  # work threads read while requests upload

    def get(self, model_id: str) -> Model:
        """The model named ``model_id``; 404 for any other name."""
        with self._lock:
            if model_id in self._bundled:
                if model_id not in self._loaded:
                    self._loaded[model_id] = _bundled_model(self._bundled[model_id])
                return self._loaded[model_id]
            if model_id in self._uploads:
                self._uploads.move_to_end(model_id)
                return self._uploads[model_id]
        shown = model_id[:40].encode("ascii", "replace").decode()
        raise WebProblem(404, f"no model '{shown}' (bundled: {', '.join(BUNDLED_NAMES)}; "
                              "uploads are kept in memory until the server restarts or "
                              f"{self.max_models} newer uploads replace them)",
                         kind="not_found")

    def add(self, texts: Mapping[str, str], title: str = "") -> Model:
        """Check and keep an upload; the same content always gets the same identifier."""
        for role in ("domain", "problem"):
            if role not in texts:
                raise WebProblem(400, f"upload a {role} file (the {ROLES[role]} field)")
        digest = hashlib.sha256()
        for role in ROLES:
            if role in texts:
                digest.update(role.encode() + b"\0" + texts[role].encode() + b"\0")
        model_id = "u-" + digest.hexdigest()[:16]
        model = Model(model_id, title or f"upload {model_id[2:10]}",
                      "uploaded " + ", ".join(ROLES[r] for r in texts), dict(texts),
                      bundled=False)
        validate_model(model)
        with self._lock:
            self._uploads[model_id] = model
            self._uploads.move_to_end(model_id)
            while len(self._uploads) > self.max_models:
                self._uploads.popitem(last=False)
        return model

    def all(self) -> list[Model]:
        """Every model: bundled first, then uploads, newest last."""
        bundled = [self.get(name) for name in BUNDLED_NAMES if name in self._bundled]
        with self._lock:
            return bundled + list(self._uploads.values())


__all__ = ["BUNDLED", "BUNDLED_NAMES", "MAX_FILES", "ROLES", "Model", "ModelStore", "decode_upload"]
