"""The one DOT writer, and SVG from it (Graphviz when installed, else our own layout).

Why one writer: landmark graphs, policy-landmark hierarchies, capability graphs and future
belief graphs all draw "boxes with arrows"; they describe nodes and edges as a
:class:`Graph` and this module writes DOT text, so quoting and styles live in one place.
Without Graphviz, :func:`dot_to_svg` lays a :class:`Graph` out in layers (longest path from
the sources) so a picture is always available; it reads back only DOT text this module wrote.
"""

from __future__ import annotations

import html
import re
import shutil
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from xaip.errors import EngineUnavailable


def quote(text: str) -> str:
    """``text`` as a DOT string literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


@dataclass
class Graph:
    """A directed graph to draw: node ids with labels and attributes, styled edges."""

    title: str = "graph"
    rankdir: str = "TB"
    node_defaults: dict[str, str] = field(default_factory=lambda: {
        "shape": "box", "style": "rounded,filled", "fontname": "Helvetica",
        "fillcolor": "white"})
    nodes: dict[str, tuple[str, dict[str, str]]] = field(default_factory=dict)
    edges: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)

    def node(self, node_id: str, label: str, **attributes: str) -> None:
        self.nodes[node_id] = (label, attributes)

    def edge(self, source: str, target: str, **attributes: str) -> None:
        self.edges.append((source, target, attributes))

    def to_dot(self) -> str:
        lines = [f"digraph {quote(self.title)} {{", f"  rankdir={self.rankdir};",
                 f"  node [{_attributes(self.node_defaults)}];"]
        for node_id, (label, attributes) in self.nodes.items():
            lines.append(f"  {quote(node_id)} [{_attributes({'label': label, **attributes})}];")
        for source, target, attributes in self.edges:
            suffix = f" [{_attributes(attributes)}]" if attributes else ""
            lines.append(f"  {quote(source)} -> {quote(target)}{suffix};")
        lines.append("}")
        return "\n".join(lines) + "\n"


def _attributes(attributes: dict[str, str]) -> str:
    return ", ".join(f"{key}={quote(value)}" for key, value in attributes.items())


def transitive_reduction(nodes: Iterable[int], edges: set[tuple[int, int]]
                         ) -> set[tuple[int, int]]:
    """The edges of an acyclic relation not implied by a longer path (what a reader follows)."""
    succ: dict[int, set[int]] = {n: set() for n in nodes}
    for a, b in edges:
        succ.setdefault(a, set()).add(b)
        succ.setdefault(b, set())

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


def dot_available() -> bool:
    """Is Graphviz's ``dot`` program installed?"""
    return shutil.which("dot") is not None


def dot_to_svg(dot_text: str, timeout: float = 60.0) -> str:
    """SVG for DOT text: Graphviz when installed, else this module's own layered layout."""
    program = shutil.which("dot")
    if program is None:
        return _own_svg(dot_text)
    result = subprocess.run([program, "-Tsvg"], input=dot_text, text=True,
                            capture_output=True, timeout=timeout, check=False)
    if result.returncode != 0:
        raise EngineUnavailable(f"dot failed: {result.stderr.strip()[:200]}")
    return result.stdout


def write_svg(dot_text: str, path: str | Path) -> None:
    """Write the SVG of ``dot_text`` to ``path``."""
    Path(path).write_text(dot_to_svg(dot_text), encoding="utf-8")


# ---------------------------------------------------------------- fallback layout

_NODE = re.compile(r'^\s*("(?:[^"\\]|\\.)*"|\w+)\s*\[(.*)\];\s*$')
_EDGE = re.compile(r'^\s*("(?:[^"\\]|\\.)*"|\w+)\s*->\s*("(?:[^"\\]|\\.)*"|\w+)')
_LABEL = re.compile(r'label\s*=\s*("(?:[^"\\]|\\.)*"|\w+)')


def _unquote(token: str) -> str:
    if token.startswith('"'):
        return token[1:-1].replace('\\"', '"').replace("\\n", " ").replace("\\\\", "\\")
    return token


def _parse(dot_text: str) -> tuple[dict[str, str], list[tuple[str, str]]]:
    labels: dict[str, str] = {}
    edges: list[tuple[str, str]] = []
    for line in dot_text.splitlines():
        edge = _EDGE.match(line)
        if edge:
            a, b = _unquote(edge.group(1)), _unquote(edge.group(2))
            labels.setdefault(a, a)
            labels.setdefault(b, b)
            edges.append((a, b))
            continue
        node = _NODE.match(line)
        if node and _unquote(node.group(1)) not in ("node", "edge", "graph"):
            name = _unquote(node.group(1))
            label = _LABEL.search(node.group(2))
            labels[name] = _unquote(label.group(1)) if label else name
    return labels, edges


def _layers(names: Sequence[str], edges: list[tuple[str, str]]) -> dict[str, int]:
    layer = {n: 0 for n in names}
    for _ in range(len(names)):
        changed = False
        for a, b in edges:
            if a != b and layer[b] < layer[a] + 1 <= len(names):
                layer[b] = layer[a] + 1
                changed = True
        if not changed:
            break
    return layer


def _own_svg(dot_text: str) -> str:
    labels, edges = _parse(dot_text)
    names = list(labels)
    layer = _layers(names, edges)
    rows: dict[int, list[str]] = {}
    for name in names:
        rows.setdefault(layer[name], []).append(name)
    char, height, gap_x, gap_y = 7, 30, 24, 50
    widths = {n: max(60, char * len(labels[n]) + 20) for n in names}
    row_width = {r: sum(widths[n] for n in ns) + gap_x * (len(ns) - 1) for r, ns in rows.items()}
    total = max(row_width.values(), default=100) + 40
    position: dict[str, tuple[float, float]] = {}
    for r, ns in rows.items():
        x = (total - row_width[r]) / 2
        for n in ns:
            position[n] = (x, 20 + r * (height + gap_y))
            x += widths[n] + gap_x
    svg_height = 40 + (max(rows, default=0) + 1) * (height + gap_y)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{total:.0f}" '
           f'height="{svg_height}" font-family="Helvetica" font-size="12">',
           '<defs><marker id="arrow" markerWidth="10" markerHeight="7" refX="10" refY="3.5" '
           'orient="auto"><polygon points="0 0, 10 3.5, 0 7"/></marker></defs>']
    for a, b in edges:
        (xa, ya), (xb, yb) = position[a], position[b]
        out.append(f'<line x1="{xa + widths[a] / 2:.0f}" y1="{ya + height}" '
                   f'x2="{xb + widths[b] / 2:.0f}" y2="{yb}" stroke="black" '
                   'marker-end="url(#arrow)"/>')
    for n in names:
        x, y = position[n]
        out.append(f'<rect x="{x:.0f}" y="{y:.0f}" width="{widths[n]}" height="{height}" '
                   'rx="6" fill="white" stroke="black"/>')
        out.append(f'<text x="{x + widths[n] / 2:.0f}" y="{y + height / 2 + 4:.0f}" '
                   f'text-anchor="middle">{html.escape(labels[n])}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
