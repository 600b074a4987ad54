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

#: The legend's cluster name and title (the fallback layout finds the legend by its name).
LEGEND_CLUSTER = "cluster_legend"
LEGEND_TITLE = "how to read this graph"


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
    #: The legend: what a node style means (meaning, node attributes) and what an edge
    #: style means (meaning, edge attributes), drawn as a box "how to read this graph".
    node_keys: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    edge_keys: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    #: Graph attributes (spacing: ``nodesep``, ``ranksep``).
    attributes: dict[str, str] = field(default_factory=dict)

    def node(self, node_id: str, label: str, **attributes: str) -> None:
        self.nodes[node_id] = (label, attributes)

    def edge(self, source: str, target: str, **attributes: str) -> None:
        self.edges.append((source, target, attributes))

    def key(self, meaning: str, *, edge: bool, **attributes: str) -> None:
        """Add a legend entry: an edge (``edge=True``) or a node drawn with
        ``attributes``, and what it means."""
        (self.edge_keys if edge else self.node_keys).append((meaning, attributes))

    def to_dot(self) -> str:
        lines = [f"digraph {quote(self.title)} {{", f"  rankdir={self.rankdir};"]
        lines.extend(f"  {key}={quote(value)};" for key, value in self.attributes.items())
        lines.append(f"  node [{_attributes(self.node_defaults)}];")
        for node_id, (label, attributes) in self.nodes.items():
            lines.append(f"  {quote(node_id)} [{_attributes({'label': label, **attributes})}];")
        for source, target, attributes in self.edges:
            suffix = f" [{_attributes(attributes)}]" if attributes else ""
            lines.append(f"  {quote(source)} -> {quote(target)}{suffix};")
        lines.extend(self._legend())
        lines.append("}")
        return "\n".join(lines) + "\n"

    def _legend(self) -> list[str]:
        """The legend as a cluster of example nodes and edges (ids ``legend ...``)."""
        if not self.node_keys and not self.edge_keys:
            return []
        lines = [f"  subgraph {quote(LEGEND_CLUSTER)} {{",
                 f"    label={quote(LEGEND_TITLE)}; fontname=\"Helvetica\"; fontsize=\"11\"; "
                 "style=\"rounded\"; color=\"grey60\";"]
        for k, (meaning, attributes) in enumerate(self.node_keys):
            lines.append(f"    {quote(f'legend node {k}')} "
                         f"[{_attributes({'label': meaning, **attributes})}];")
        for k, (meaning, attributes) in enumerate(self.edge_keys):
            start, end = quote(f"legend edge {k}"), quote(f"legend edge {k} meaning")
            lines.append(f"    {start} [shape=\"point\", width=\"0.05\", label=\"\"];")
            lines.append(f"    {end} [shape=\"plaintext\", style=\"\", "
                         f"label={quote(meaning)}];")
            suffix = f" [{_attributes(attributes)}]" if attributes else ""
            lines.append(f"    {start} -> {end}{suffix};")
        lines.append("  }")
        return lines


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
_EDGE = re.compile(r'^\s*("(?:[^"\\]|\\.)*"|\w+)\s*->\s*("(?:[^"\\]|\\.)*"|\w+)(.*)$')
_LABEL = re.compile(r'(?<![a-z])label\s*=\s*("(?:[^"\\]|\\.)*"|\w+)')
_STYLE = re.compile(r'(?<![a-z])style\s*=\s*"([^"]*)"')
_PEN = re.compile(r'penwidth\s*=\s*"([0-9.]+)"')
_DASHES = {"dashed": "6 4", "dotted": "2 3"}
_FILL = re.compile(r'fillcolor\s*=\s*"([a-z]+)"')
_PERIPHERIES = re.compile(r'peripheries\s*=\s*"2"')


def _unquote(token: str) -> str:
    if token.startswith('"'):
        return token[1:-1].replace('\\"', '"').replace("\\n", " ").replace("\\\\", "\\")
    return token


@dataclass
class _Parsed:
    labels: dict[str, str] = field(default_factory=dict)
    node_attributes: dict[str, str] = field(default_factory=dict)
    edges: list[tuple[str, str, str]] = field(default_factory=list)
    legend_nodes: list[tuple[str, str]] = field(default_factory=list)
    legend_edges: list[tuple[str, str]] = field(default_factory=list)


def _parse(dot_text: str) -> _Parsed:
    """Nodes, edges (with their attribute text) and the legend of DOT this module wrote."""
    parsed = _Parsed()
    legend_labels: dict[str, str] = {}
    legend_edges: list[tuple[str, str]] = []
    in_legend = False
    for line in dot_text.splitlines():
        if line.strip().startswith(f"subgraph {quote(LEGEND_CLUSTER)}"):
            in_legend = True
            continue
        if in_legend and line.strip() == "}":
            in_legend = False
            continue
        edge = _EDGE.match(line)
        node = None if edge else _NODE.match(line)
        if in_legend:
            if edge:
                legend_edges.append((_unquote(edge.group(2)), edge.group(3)))
            elif node:
                name = _unquote(node.group(1))
                label = _LABEL.search(node.group(2))
                legend_labels[name] = _unquote(label.group(1)) if label else ""
                if name.startswith("legend node"):
                    parsed.legend_nodes.append((legend_labels[name], node.group(2)))
            continue
        if edge:
            a, b = _unquote(edge.group(1)), _unquote(edge.group(2))
            parsed.labels.setdefault(a, a)
            parsed.labels.setdefault(b, b)
            parsed.edges.append((a, b, edge.group(3)))
            continue
        if node and _unquote(node.group(1)) not in ("node", "edge", "graph"):
            name = _unquote(node.group(1))
            label = _LABEL.search(node.group(2))
            parsed.labels[name] = _unquote(label.group(1)) if label else name
            parsed.node_attributes[name] = node.group(2)
    parsed.legend_edges = [(legend_labels.get(end, end), text) for end, text in legend_edges]
    return parsed


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


def _stroke(attributes: str) -> str:
    """SVG stroke attributes for a DOT edge's or node's ``style``/``penwidth``."""
    style = _STYLE.search(attributes)
    pen = _PEN.search(attributes)
    out = f' stroke-width="{pen.group(1)}"' if pen else ""
    for word in (style.group(1).split(",") if style else ()):
        if word.strip() in _DASHES:
            out += f' stroke-dasharray="{_DASHES[word.strip()]}"'
    return out


def _box(x: float, y: float, width: float, height: float, attributes: str) -> str:
    """A node's rounded box: DOT's fill colour when the style says ``filled`` (a colour
    name SVG knows too), its border style, and a second border for ``peripheries=2``."""
    style = _STYLE.search(attributes)
    filled = style is not None and "filled" in style.group(1)
    colour = _FILL.search(attributes)
    fill = colour.group(1) if filled and colour else "white"
    out = (f'<rect x="{x:.0f}" y="{y:.0f}" width="{width:.0f}" height="{height:.0f}" rx="6" '
           f'fill="{fill}" stroke="black"{_stroke(attributes)}/>')
    if _PERIPHERIES.search(attributes):
        out += (f'<rect x="{x + 3:.0f}" y="{y + 3:.0f}" width="{width - 6:.0f}" '
                f'height="{height - 6:.0f}" rx="4" fill="none" stroke="black"/>')
    return out


def _own_svg(dot_text: str) -> str:
    parsed = _parse(dot_text)
    labels = parsed.labels
    names = list(labels)
    layer = _layers(names, [(a, b) for a, b, _ in parsed.edges])
    rows: dict[int, list[str]] = {}
    for name in names:
        rows.setdefault(layer[name], []).append(name)
    char, height, gap_x, gap_y = 7, 30, 24, 50
    widths = {n: max(60, char * len(labels[n]) + 20) for n in names}
    row_width = {r: sum(widths[n] for n in ns) + gap_x * (len(ns) - 1) for r, ns in rows.items()}
    keys = [*parsed.legend_nodes, *parsed.legend_edges]
    legend_width = max((char * len(text) + 90 for text, _ in keys), default=0)
    total = max(max(row_width.values(), default=100), legend_width) + 40
    position: dict[str, tuple[float, float]] = {}
    for r, ns in rows.items():
        x = (total - row_width[r]) / 2
        for n in ns:
            position[n] = (x, 20 + r * (height + gap_y))
            x += widths[n] + gap_x
    graph_height = 40 + (max(rows, default=0) + 1) * (height + gap_y) if names else 20
    svg_height = graph_height + (30 + 26 * len(keys) if keys else 0)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{total:.0f}" '
           f'height="{svg_height}" font-family="Helvetica" font-size="12">',
           '<defs><marker id="arrow" markerWidth="10" markerHeight="7" refX="10" refY="3.5" '
           'orient="auto"><polygon points="0 0, 10 3.5, 0 7"/></marker></defs>']
    for a, b, attributes in parsed.edges:
        (xa, ya), (xb, yb) = position[a], position[b]
        out.append(f'<line x1="{xa + widths[a] / 2:.0f}" y1="{ya + height}" '
                   f'x2="{xb + widths[b] / 2:.0f}" y2="{yb}" stroke="black"'
                   f'{_stroke(attributes)} marker-end="url(#arrow)"/>')
    for n in names:
        x, y = position[n]
        out.append(_box(x, y, widths[n], height, parsed.node_attributes.get(n, "")))
        out.append(f'<text x="{x + widths[n] / 2:.0f}" y="{y + height / 2 + 4:.0f}" '
                   f'text-anchor="middle">{html.escape(labels[n])}</text>')
    if keys:
        y = graph_height + 10
        out.append(f'<text x="20" y="{y:.0f}" font-weight="bold">'
                   f'{html.escape(LEGEND_TITLE)}</text>')
        for text, attributes in parsed.legend_nodes:
            y += 26
            out.append(_box(20, y - 15, 50, 20, attributes))
            out.append(f'<text x="80" y="{y:.0f}">{html.escape(text)}</text>')
        for text, attributes in parsed.legend_edges:
            y += 26
            out.append(f'<line x1="20" y1="{y - 5:.0f}" x2="70" y2="{y - 5:.0f}" '
                       f'stroke="black"{_stroke(attributes)} marker-end="url(#arrow)"/>')
            out.append(f'<text x="80" y="{y:.0f}">{html.escape(text)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
