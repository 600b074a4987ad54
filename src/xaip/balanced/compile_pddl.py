"""The compiled MEGA* task as PDDL text that Fast Downward (or any ADL planner) reads.

Why propositional: the compiled task is built on the grounded models (beliefs and meta
fluents are per ground fact and per explainable feature), so each bit becomes one 0-ary
predicate with a readable name, and each compiled action one parameterless action.
Guards are written as ``(or (not (mu_…)) (b_…))``, belief effects under a meta fluent as
``(when (mu_…) …)``, and "no task action after the robot's goal" as a disjunction of the
goal's negated literals. A comment before each meta fluent and explanatory action says
which feature it is about.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from xaip.errors import InputError
from xaip.planning.task import bits

if TYPE_CHECKING:
    from xaip.balanced.compile import CompiledAction, CompiledTask

REQUIREMENTS = (":strips :negative-preconditions :disjunctive-preconditions "
                ":conditional-effects :action-costs")


def _atoms(task: CompiledTask, mask: int, negated: bool = False) -> list[str]:
    if negated:
        return [f"(not ({task.facts[i]}))" for i in bits(mask)]
    return [f"({task.facts[i]})" for i in bits(mask)]


def _conjunction(parts: list[str]) -> str:
    if len(parts) == 1:
        return parts[0]
    return "(and " + " ".join(parts) + ")"


def _action(task: CompiledTask, action: CompiledAction) -> list[str]:
    pre = _atoms(task, action.pre) + _atoms(task, action.neg_pre, negated=True)
    for guard in action.guards:
        belief = f"({task.facts[guard.belief]})"
        pre.append(f"(or (not ({task.facts[guard.mu]})) "
                   f"{belief if guard.positive else f'(not {belief})'})")
    if task.stop_at_goal and action.kind == "task":
        unmet = _atoms(task, task.robot_goal, negated=True) + _atoms(task, task.robot_goal_neg)
        if unmet:
            pre.append("(or " + " ".join(unmet) + ")" if len(unmet) > 1 else unmet[0])
    effect = _atoms(task, action.add) + _atoms(task, action.delete & ~action.add, negated=True)
    for when in action.when:
        inner = _atoms(task, when.add) + _atoms(task, when.delete, negated=True)
        effect.append(f"(when ({task.facts[when.mu]}) {_conjunction(inner)})")
    for cond in action.conditional:  # B05: conditional effects and prioritised beliefs
        test = _atoms(task, cond.cond_pos) + _atoms(task, cond.cond_neg, negated=True)
        inner = _atoms(task, cond.add) + _atoms(task, cond.delete, negated=True)
        if not test:
            effect.extend(inner)
        else:
            effect.append(f"(when {_conjunction(test)} {_conjunction(inner)})")
    effect.append(f"(increase (total-cost) {action.cost})")
    lines = []
    if action.kind in ("task", "explain"):
        lines.append(f"  ; {action.kind}: {action.label}")
    lines += [f"  (:action {action.name}",
              "   :parameters ()",
              f"   :precondition (and {' '.join(pre)})",
              f"   :effect (and {' '.join(effect)}))"]
    return lines


def compiled_pddl(task: CompiledTask) -> tuple[str, str]:
    """``(domain, problem)`` texts of the compiled task."""
    lines = ["; MEGA* compilation (xaip.balanced.compile): world facts w_*, the person's",
             "; beliefs b_*, meta fluents mu_* (she believes the feature is in the model),",
             f"; costs scaled by {task.scale}.",
             "(define (domain megastar)",
             f"  (:requirements {REQUIREMENTS})",
             "  (:predicates"]
    for name, meaning in zip(task.facts, task.descriptions, strict=True):
        lines.append(f"    ({name})" + (f"  ; {meaning}" if name.startswith("mu") else ""))
    lines.append("  )")
    lines.append("  (:functions (total-cost) - number)")
    for action in task.actions:
        lines += _action(task, action)
    lines.append(")")
    problem = "\n".join([
        "(define (problem megastar-task) (:domain megastar)",
        f"  (:init {' '.join(_atoms(task, task.init))} (= (total-cost) 0))",
        f"  (:goal (and {' '.join(_atoms(task, task.goal))}))",
        "  (:metric minimize (total-cost)))", ""])
    return "\n".join(lines) + "\n", problem


#: The files :func:`write_pddl` writes into its directory.
COMPILED_FILES = ("domain.pddl", "problem.pddl")

#: Writes one text file (the CLI's never writes over an input).
Writer = Callable[[Path, str], None]


def _write(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")


def write_pddl(task: CompiledTask, directory: str | Path,
               write: Writer | None = None) -> tuple[Path, Path]:
    """Write :data:`COMPILED_FILES` (domain, problem) into ``directory`` (created if
    needed) with ``write`` (default: plain writes)."""
    folder = Path(directory)
    domain, problem = compiled_pddl(task)
    paths = folder / COMPILED_FILES[0], folder / COMPILED_FILES[1]
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for path, text in zip(paths, (domain, problem), strict=True):
            (write or _write)(path, text)
    except OSError as error:
        raise InputError(f"cannot write the compiled task to {folder}: "
                         f"{error.strerror or error}") from None
    return paths
