"""One generated MRP on disk: robot and human PDDL, the plan, and a manifest.

Why these files: ``xaip explain ROBOT HUMAN PROBLEM --plan PLAN --human-problem
HUMAN_PROBLEM`` reads exactly them, so a generated instance can be explained (and its
explanation checked) without any further step; the manifest records how it was made
(seed, k, the edits as features) so that a result on it can be reproduced.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from xaip.commandline import check_output_dir, write_output
from xaip.generate.mrp import GeneratedMRP
from xaip.planning.pddl import write_domain, write_problem

#: The files :func:`write_mrp` writes into an instance's folder.
MRP_FILES = ("robot-domain.pddl", "human-domain.pddl", "problem.pddl", "human-problem.pddl",
             "plan.txt", "manifest.json")


def instance_name(instance: GeneratedMRP) -> str:
    """The folder name of an instance: ``mrp-k<k>-s<seed>``."""
    return f"mrp-k{instance.k}-s{instance.seed}"


def manifest(instance: GeneratedMRP, folder: Path, source: dict[str, str]) -> dict[str, Any]:
    """The instance's manifest with its files (names in its folder, so that the same seed
    gives the same bytes wherever it is written) and what it was made from."""
    out = {"instance": instance_name(instance), "source": source, **instance.manifest()}
    out["files"] = {name.rsplit(".", 1)[0].replace("-", "_"): name
                    for name in MRP_FILES if name != "manifest.json"}
    return out


def write_mrp(instance: GeneratedMRP, folder: str | Path, source: dict[str, str] | None = None,
              inputs: Iterable[str | Path] = ()) -> dict[str, Any]:
    """Write the instance into ``folder`` (created) and return its manifest.

    Refuses (``OutputError``) to write over any of ``inputs`` or the files read so far.
    """
    target = Path(folder)
    given = tuple(inputs)
    paths = check_output_dir(target, MRP_FILES, given)
    target.mkdir(parents=True, exist_ok=True)
    info = manifest(instance, target, dict(source or {}))
    contents = (write_domain(instance.robot_domain), write_domain(instance.human_domain),
                write_problem(instance.robot_problem), write_problem(instance.human_problem),
                instance.plan_text, json.dumps(info, indent=2) + "\n")
    for path, text in zip(paths, contents, strict=True):
        write_output(path, text, given)
    return info
