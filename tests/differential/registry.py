"""The families with a differential module, by name (module path under ``tests.differential``)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType

FAMILIES: tuple[str, ...] = (
    "planning",
    "reconcile",
    "balanced",
    "balanced_learn",
    "explicable",
    "observers",
    "summaries",
    "concepts",
    "capabilities",
    "interop",
    "gymnasium",
    "unsolvable",
    "foils",
    "assist",
    "generate",
    "multiuser",
    "abstraction",
    "modelfree",
    "localmodel",
)


def load(family: str) -> ModuleType | None:
    """The family's differential module, or ``None`` while it has none."""
    try:
        return importlib.import_module(f"tests.differential.{family}")
    except ModuleNotFoundError as error:
        if error.name == f"tests.differential.{family}":
            return None
        raise


def checker(family: str) -> Callable[[int], str | None] | None:
    module = load(family)
    return None if module is None else module.check
