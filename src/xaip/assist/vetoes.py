"""What the person forbids: a veto names a schema (``put-down``: every ground action of it)
or one ground action (``(put-down b2)``).

Why its own module: the search filters ground actions with :func:`banned`; the checker does
*not* use this module, it matches plan text with its own tiny matcher
(:func:`xaip.assist.check.vetoed_text`), so a bug here cannot hide itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from xaip.errors import InputError
from xaip.planning.pddl.model import Domain, Problem
from xaip.planning.plans import PlanStep, check_steps
from xaip.planning.task import GroundAction


def parse_veto(text: str, domain: Domain, problem: Problem) -> tuple[str, ...]:
    """The veto ``text`` as words (schema name, then arguments, lower case); a one-line
    :class:`InputError` when it names no schema of the domain or a ground action with wrong
    arguments."""
    words = text.strip().strip("()").lower().split()
    if not words or "(" in text.strip()[1:-1] or ")" in text.strip()[1:-1]:
        raise InputError(f"veto {text!r}: expected a schema name or '(action arg ...)'")
    names = {action.name for action in domain.actions}
    if words[0] not in names:
        raise InputError(f"veto {text!r}: the domain has no action {words[0]!r}")
    if len(words) > 1:
        try:
            check_steps(domain, problem, [PlanStep(words[0], tuple(words[1:]))])
        except InputError as error:  # drop the "step 1: " a plan's message starts with
            detail = str(error).removeprefix("step 1: ")
            raise InputError(f"veto {text!r}: {detail}") from None
    return tuple(words)


def banned(action: GroundAction, vetoes: Iterable[Sequence[str]]) -> bool:
    """Does one of ``vetoes`` forbid the ground ``action``?"""
    for veto in vetoes:
        if veto[0] == action.schema and (len(veto) == 1 or tuple(veto[1:]) == action.args):
            return True
    return False


def veto_text(veto: Sequence[str]) -> str:
    """A veto as a person reads it: ``put-down`` (every instance) or ``(put-down b2)``."""
    return veto[0] if len(veto) == 1 else "(" + " ".join(veto) + ")"
