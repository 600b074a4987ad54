"""PDDL and PPDDL in and out: the reader, the semantic checks and the writer.

Typical use::

    from xaip.planning.pddl import read_domain, read_problem, check_problem
    domain = read_domain("domain.pddl")
    problem = read_problem("problem.pddl")
    check_problem(domain, problem)

Syntax errors raise :class:`~xaip.errors.PDDLSyntaxError` (file, line, column, what was
expected); constructs we do not support raise :class:`~xaip.errors.UnsupportedFeature`
naming the construct and where it is; undeclared names raise
:class:`~xaip.errors.SemanticError`.

Conditions and effects are walked with :class:`Visitor` (``visit_<NodeClass>`` dispatch),
:func:`children` and :func:`walk`, and printed with :func:`print_condition` /
:func:`print_effect` (one printer, used by the writer and the English sentences).
"""

from xaip.planning.pddl.checks import check_domain, check_problem
from xaip.planning.pddl.printer import print_condition, print_effect
from xaip.planning.pddl.reader import parse_domain, parse_problem, read_domain, read_problem
from xaip.planning.pddl.visitor import Visitor, children, walk
from xaip.planning.pddl.writer import condition_text, effect_text, write_domain, write_problem

__all__ = [
    "Visitor",
    "check_domain",
    "check_problem",
    "children",
    "condition_text",
    "effect_text",
    "print_condition",
    "print_effect",
    "parse_domain",
    "parse_problem",
    "read_domain",
    "read_problem",
    "walk",
    "write_domain",
    "write_problem",
]
