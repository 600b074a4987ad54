"""Explainer parameters in a study file (``params = {...}`` of a condition): which
explainers take which, checked at load, and the run that uses them.

Why a table per explainer and not ``**kwargs`` passed through: a study's conditions must
differ only in what the researcher meant, and a misspelt parameter silently ignored would
make two conditions identical. Every key is checked against the explainer's own list when
the study is read (``conditions[1].params.gama: unknown parameter of
balanced.model-space-balanced (known: alpha, beta, communication_cost, gamma)``), every
value against its kind, and foils are parsed there too, so a bad one is a one-line error
before the server starts, never a failed page.

The parameters are those of the explainers' own front doors (the same the ``xaip``
commands take): reconciliation -- ``grounded``; ``foils`` (contrastive: ``avoid:ACTION``,
``use:ACTION`` or a plan); ``annotation_cost`` (uncertain types); ``alpha`` and
``question_cost`` (conditional) -- balanced planning's weights ``alpha``, ``beta``,
``gamma`` and ``communication_cost`` (the price of one explanation item), and the RADAR-X
foils of ``foils.radar-x`` (one constraint a line, on its bundled blocksworld). Every other
explainer runs its bundled example and takes only the condition's budget (``max_seconds``,
``max_nodes``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from xaip.errors import InputError
from xaip.runtime import Budget

#: A parameter's kind: ``bool``; ``number`` (finite, >= 0); ``fraction`` (0 to 1);
#: ``foils`` (a non-empty list of non-empty texts).
KINDS = ("bool", "number", "fraction", "foils")

_KNOWN = {"grounded": "bool"}
_UNCERTAIN = {"grounded": "bool", "annotation_cost": "number"}
_WEIGHTS = {"alpha": "number", "beta": "number", "gamma": "number",
            "communication_cost": "number"}

#: The parameters each explainer takes in a study (name -> kind).
PARAMETERS: dict[str, dict[str, str]] = {
    "reconcile.mce": _KNOWN, "reconcile.mme": _KNOWN, "reconcile.approx": _KNOWN,
    "reconcile.contrastive": {**_KNOWN, "foils": "foils"},
    "reconcile.conformant": _UNCERTAIN,
    "reconcile.conditional": {**_UNCERTAIN, "alpha": "fraction", "question_cost": "number"},
    "reconcile.anytime": _UNCERTAIN,
    "balanced.model-space-balanced": _WEIGHTS,
    "balanced.model-space-explicable": _WEIGHTS,
    "balanced.model-space-explicable-optimal": _WEIGHTS,
    "balanced.model-space-approximate-explicable": _WEIGHTS,
    "balanced.compile-balanced": _WEIGHTS,
    "foils.radar-x": {"foils": "foils"},
}

#: What the registry's bundled examples pass that a study does not override.
_DEFAULTS: dict[str, dict[str, Any]] = {
    "reconcile.contrastive": {"foils": ("avoid:tuck",)},
    "reconcile.conditional": {"alpha": 0.0},
}

Params = tuple[tuple[str, Any], ...]


def check_params(raw: Any, explainer: str | None, where: str) -> Params:
    """The condition's parameters, checked and normalised (sorted by key; lists become
    tuples so a condition stays hashable); ``where`` names the table in errors."""
    if raw is None:
        return ()
    if not isinstance(raw, dict):
        raise InputError(f"{where}: a table of parameters, not {type(raw).__name__}")
    known = PARAMETERS.get(explainer or "")
    if known is None:
        if raw:
            raise InputError(f"{where}: {explainer or 'a condition without an explainer'} "
                             "takes no parameters in a study (only its budget: max_seconds, "
                             "max_nodes); explainers with parameters: "
                             f"{', '.join(sorted(PARAMETERS))}")
        return ()
    checked = []
    for key in sorted(raw):
        kind = known.get(key)
        if kind is None and key in ("max_seconds", "max_nodes"):
            condition = where.rsplit(".", 1)[0]
            raise InputError(f"{where}.{key}: the budget goes in the condition itself "
                             f"({condition}.{key}), not in its params")
        if kind is None:
            raise InputError(f"{where}.{key}: unknown parameter of {explainer} "
                             f"(known: {', '.join(sorted(known))})")
        checked.append((key, _value(raw[key], kind, f"{where}.{key}")))
    params = tuple(checked)
    if explainer == "foils.radar-x" and params:
        _radar_foils(dict(params)["foils"], f"{where}.foils")
    if explainer == "reconcile.contrastive" and params:
        _contrastive_foils(dict(params).get("foils", ()), f"{where}.foils")
    return params


def _value(value: Any, kind: str, where: str) -> Any:
    if kind == "bool":
        if not isinstance(value, bool):
            raise InputError(f"{where}: true or false, not {value!r}")
        return value
    if kind in ("number", "fraction"):
        if (isinstance(value, bool) or not isinstance(value, int | float)
                or not math.isfinite(value) or value < 0
                or (kind == "fraction" and value > 1)):
            what = "a number from 0 to 1" if kind == "fraction" else "a finite number >= 0"
            raise InputError(f"{where}: {what}, not {value!r}")
        return float(value)
    if (not isinstance(value, list) or not value
            or not all(isinstance(item, str) and item.strip() for item in value)):
        raise InputError(f"{where}: a non-empty list of foil texts")
    return tuple(item.strip() for item in value)


def _radar_foils(lines: tuple[str, ...], where: str) -> None:
    from xaip.foils.bundled import bundled_task
    from xaip.foils.language import parse_foils

    domain, problem = bundled_task()
    try:
        parse_foils("\n".join(lines), domain, problem, where)
    except InputError as error:
        raise InputError(str(error).splitlines()[0]) from None


def _contrastive_foils(texts: tuple[str, ...], where: str) -> None:
    from xaip.reconcile.goals import parse_foil

    for number, text in enumerate(texts):
        try:
            parse_foil(text, f"{where}[{number}]")
        except InputError as error:
            raise InputError(f"{where}[{number}]: {error}") from None


def run_with_params(explainer: str, params: Params, budget: Budget, mrp: Any = None
                    ) -> Any:
    """The explainer's answer with ``params`` (on ``mrp`` for reconciliation when the
    condition names its own files, else on the registry's bundled example); checked by
    the family's independent checker inside the call, as every front door does."""
    options = {**_DEFAULTS.get(explainer, {}), **dict(params)}
    family = explainer.split(".", 1)[0]
    runner = _RUNNERS.get(family)
    if runner is None:  # pragma: no cover - PARAMETERS names only the families below
        raise InputError(f"{explainer} takes no parameters in a study")
    return runner(explainer, options, budget, mrp)


def _reconcile(explainer: str, options: dict[str, Any], budget: Budget, mrp: Any) -> Any:
    from xaip.reconcile import explain
    from xaip.reconcile.goals import parse_foil
    from xaip.reconcile.registry import fetch_mrp, usar_mrp

    kind = explainer.split(".", 1)[1]
    uncertain = kind in ("conformant", "conditional", "anytime")
    if mrp is None:
        mrp = usar_mrp() if uncertain else fetch_mrp()
    if "foils" in options:
        options["foils"] = tuple(parse_foil(text) for text in options["foils"])
    if kind == "anytime":
        options["answers"] = _no_answers
    return explain(mrp, kind, budget=budget, **options)


def _no_answers(feature: Any) -> bool:
    """The anytime explainer's person answers "no" to every question (as in the registry's
    example): the explanation then covers every completion."""
    return False


def _balanced(explainer: str, options: dict[str, Any], budget: Budget, mrp: Any) -> Any:
    from xaip.balanced.instances import USAR_COMMUNICATION_COST, usar_problem
    from xaip.balanced.objectives import Objective, Weights
    from xaip.balanced.solve import balance

    name = explainer.split(".", 1)[1]
    method = "compile" if name.startswith("compile-") else "model-space"
    exact = "approximate" not in name
    objective = Objective(_objective(name))
    weights = Weights(alpha=options.get("alpha", 1.0), beta=options.get("beta", 1.0),
                      gamma=options.get("gamma", 1.0))
    problem = usar_problem(objective, options.get("communication_cost",
                                                  USAR_COMMUNICATION_COST), weights)
    return balance(problem, method=method, exact=exact, budget=budget)


def _objective(name: str) -> str:
    """The objective in a balanced explainer's registry name."""
    for objective in ("explicable-optimal", "explicable", "balanced"):
        if name.endswith(objective):
            return objective
    raise InputError(f"balanced.{name}: no objective in the name")  # pragma: no cover


def _foils(explainer: str, options: dict[str, Any], budget: Budget, mrp: Any) -> Any:
    from xaip.foils.bundled import bundled_task
    from xaip.foils.explain import explain_foils

    domain, problem = bundled_task()
    return explain_foils(domain, problem, "\n".join(options["foils"]), file="study foils",
                         budget=budget)


_RUNNERS: dict[str, Callable[[str, dict[str, Any], Budget, Any], Any]] = {
    "reconcile": _reconcile, "balanced": _balanced, "foils": _foils}


__all__ = ["KINDS", "PARAMETERS", "Params", "check_params", "run_with_params"]
