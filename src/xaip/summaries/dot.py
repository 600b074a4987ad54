"""The policy landmark graph as Graphviz DOT, and as SVG when Graphviz is installed.

Why a transitive reduction: orderings are reported for every ordered pair (a chain of
six subgoals has fifteen), but a drawing should show only the edges a reader follows;
the dropped pairs are implied by paths. Colours say where a subgoal comes from:
policy-specific subgoals are blue, subgoals every policy needs (model landmarks) white,
goal facts green with a double border (as in the paper's figure 3).
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from xaip.errors import EngineUnavailable
from xaip.planning.pddl.model import Atom
from xaip.summaries.landmarks import LandmarkSet

_EDGE_STYLE = {"greedy-necessary": "style=solid, penwidth=2", "natural": "style=dashed"}


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def transitive_reduction(nodes: Sequence[int], edges: set[tuple[int, int]]) -> set[tuple[int, int]]:
    """The edges of an acyclic relation not implied by a longer path."""
    succ: dict[int, set[int]] = {n: set() for n in nodes}
    for a, b in edges:
        succ[a].add(b)

    def reachable_without(a: int, b: int) -> bool:
        stack = [c for c in succ[a] if c != b]
        seen = set(stack)
        while stack:
            c = stack.pop()
            if c == b:
                return True
            for d in succ[c]:
                if d not in seen:
                    seen.add(d)
                    stack.append(d)
        return False

    return {(a, b) for a, b in edges if not reachable_without(a, b)}


def landmark_dot(
    landmarks: LandmarkSet,
    facts: Sequence[Atom],
    model: LandmarkSet | None = None,
    title: str = "policy landmarks",
) -> str:
    """DOT text for the non-initial landmarks of ``landmarks`` and their orderings."""
    shown = [f for f in landmarks.facts if f not in landmarks.initial]
    model_facts = set(model.facts) if model is not None else set()
    kind = {(o.before, o.after): o.kind for o in landmarks.orderings
            if o.before in set(shown) and o.after in set(shown)}
    kept = transitive_reduction(shown, set(kind))
    lines = [
        f"digraph {_quote(title)} {{",
        "  rankdir=TB;",
        '  node [shape=box, style="rounded,filled", fontname="Helvetica"];',
    ]
    for f in shown:
        attributes = [f"label={_quote(str(facts[f]))}"]
        if f in landmarks.goal:
            attributes += ['fillcolor="palegreen"', "peripheries=2"]
        elif f in model_facts:
            attributes.append('fillcolor="white"')
        else:
            attributes.append('fillcolor="lightblue"')
        lines.append(f"  F{f} [{', '.join(attributes)}];")
    for a, b in sorted(kept):
        lines.append(f"  F{a} -> F{b} [{_EDGE_STYLE[kind[(a, b)]]}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def dot_available() -> bool:
    return shutil.which("dot") is not None


def render_svg(dot_text: str, path: str | Path, timeout: float = 60.0) -> None:
    """Write ``dot_text`` rendered as SVG to ``path`` with Graphviz's ``dot`` program.

    Raises :class:`~xaip.errors.EngineUnavailable` when ``dot`` is not installed.
    """
    program = shutil.which("dot")
    if program is None:
        raise EngineUnavailable(
            "Graphviz 'dot' is not installed, so no SVG was written; the DOT file can be "
            "rendered elsewhere (dot -Tsvg FILE.dot -o FILE.svg)"
        )
    result = subprocess.run(
        [program, "-Tsvg", "-o", str(path)],
        input=dot_text,
        text=True,
        capture_output=True,
        timeout=timeout,
        check=False,
    )
    if result.returncode != 0:
        raise EngineUnavailable(f"dot failed: {result.stderr.strip()[:200]}")
