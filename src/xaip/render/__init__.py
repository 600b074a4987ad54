"""Every way xaip shows a result: English text, JSON, PDDL, DOT, SVG, PNG and GIF.

Why a registry: results are plain frozen data and never print or format themselves; the CLI,
the Python API and the workbench all ask :func:`render` for a format, and each result type
registers its renderers once, in ``xaip.render.<family>`` for types defined in
``xaip.<family>`` (found by that name, imported on first use). JSON needs no renderer:
it is ``to_dict()`` for every result. SVG falls back to the DOT renderer plus Graphviz (or
our own layout when Graphviz is missing, see :mod:`xaip.render.dot`).

Typical use::

    from xaip.render import render
    print(render(result))            # English
    svg = render(result, "svg")      # a picture, where the type has a graph
"""

from __future__ import annotations

import importlib
import json
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from xaip.errors import InputError

FORMATS = ("text", "json", "pddl", "dot", "svg", "png", "gif")

Renderer = Callable[[Any], "str | bytes"]
F = TypeVar("F", bound=Callable[..., Any])

_RENDERERS: dict[tuple[type | str, str], Renderer] = {}

_loaded: set[str] = set()
#: Held while a family's renderers are imported: the workbench renders from worker threads,
#: and a thread that saw the family marked loaded before its module had registered anything
#: would report "no png rendering" for a type that has one.
_loading = threading.RLock()  # re-entrant: a renderer module may render on import


def renderer(result_type: type | str, fmt: str) -> Callable[[F], F]:
    """Register the decorated function as ``fmt`` renderer of ``result_type``: the class,
    or its dotted name (``"xaip.planning.landmarks.graph.LandmarkGraph"``), which lets a
    renderer module register types without importing their modules (so rendering a plan
    does not load the landmark and feature code: start-up, issue 26)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}")

    def register(function: F) -> F:
        _RENDERERS[(result_type, fmt)] = function
        return function

    return register


def _load(result: Any) -> None:
    """Import the renderers of ``result``'s family: a type from ``xaip.<family>...`` is
    rendered by ``xaip.render.<family>`` (so rendering a plan never imports the explainers,
    and a new family's renderers are found by name)."""
    for cls in type(result).__mro__:
        parts = cls.__module__.split(".")
        if len(parts) < 2 or parts[0] != "xaip":
            continue
        module = f"xaip.render.{parts[1]}"
        if module in _loaded:
            continue
        with _loading:
            if module in _loaded:
                continue
            try:
                importlib.import_module(module)
            except ModuleNotFoundError as exc:
                if exc.name != module:
                    raise
            _loaded.add(module)


def _find(result: Any, fmt: str) -> Renderer | None:
    for cls in type(result).__mro__:
        found = _RENDERERS.get((cls, fmt)) or _RENDERERS.get(
            (f"{cls.__module__}.{cls.__qualname__}", fmt))
        if found is not None:
            return found
    return None


def check_line(verified: bool, report: Any, status: Any) -> str:
    """One sentence on whether an independent check confirmed an answer (every family's
    text renderer ends with it). ``report`` is a :class:`~xaip.contract.CheckReport` or
    ``None``; ``status`` a :class:`~xaip.runtime.Status`."""
    if not status.finished:
        return "Not verified: the budget ran out before the answer was finished."
    if verified:
        return "Verified independently" + (f": {report.details}." if report else ".")
    if report is None:
        return "NOT verified (no check ran)."
    if report.ok is None:
        return f"NOT verified: the check could not decide ({report.details})."
    return f"NOT verified: the independent check disagrees ({report.details})."


def formats(result: Any) -> list[str]:
    """The formats :func:`render` can produce for ``result``."""
    _load(result)
    out = [fmt for fmt in FORMATS if _find(result, fmt) is not None]
    if "json" not in out and hasattr(result, "to_dict"):
        out.insert(1 if "text" in out else 0, "json")
    if "svg" not in out and "dot" in out:
        out.append("svg")
    return out


def render(result: Any, fmt: str = "text") -> Any:
    """``result`` in format ``fmt`` (``str``; ``bytes`` for PNG and GIF)."""
    _load(result)
    found = _find(result, fmt)
    if found is not None:
        return found(result)
    if fmt == "json" and hasattr(result, "to_dict"):
        return json.dumps(result.to_dict(), indent=2)
    if fmt == "svg":
        dot = _find(result, "dot")
        if dot is not None:
            from xaip.render.dot import dot_to_svg

            return dot_to_svg(str(dot(result)))
    raise InputError(f"no {fmt} rendering for {type(result).__name__} "
                     f"(available: {', '.join(formats(result)) or 'none'})")


__all__ = ["FORMATS", "check_line", "formats", "render", "renderer"]
