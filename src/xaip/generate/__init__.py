"""Random benchmark instances: model-reconciliation problems and planning tasks.

:func:`random_mrp` perturbs a robot model into a human model (remove ``k`` features, add
``k`` spurious ones, or a mix) and pairs them with the robot's optimal plan, as the book's
chapter 5 experiments do (book-spec row R08); :func:`write_mrp` writes one instance as
PDDL, plan and manifest files. ``xaip generate mrp`` and ``xaip generate task`` are the
commands (:mod:`xaip.generate.command`); ``docs/generate.md`` has a worked example.
"""

from xaip.generate.candidates import DEFAULT_KINDS, PERTURBABLE_KINDS, parse_kinds
from xaip.generate.files import MRP_FILES, write_mrp
from xaip.generate.mrp import DEFAULT_MAX_TRIES, MODES, GeneratedMRP, random_mrp, robot_plan

__all__ = ["DEFAULT_KINDS", "DEFAULT_MAX_TRIES", "MODES", "MRP_FILES", "PERTURBABLE_KINDS",
           "GeneratedMRP", "parse_kinds", "random_mrp", "robot_plan", "write_mrp"]
