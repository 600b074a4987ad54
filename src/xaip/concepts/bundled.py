"""The bundled Sokoban examples and the loader the CLI and the registry share.

Why one loader: ``xaip why-not`` with files, ``xaip why-not sokoban-switch`` without them,
the registry's examples and the tests all build the same :class:`Query` the same way, so
bad input (an unknown action, a level without a player, a broken vocabulary) is reported
identically everywhere.
"""

from __future__ import annotations

from collections.abc import Hashable
from importlib import resources
from pathlib import Path
from typing import Any

from xaip.concepts.results import Query
from xaip.concepts.simulator import run_trace
from xaip.concepts.sokoban import VARIANTS, Sokoban, read_actions, read_level
from xaip.concepts.vocabulary import default_vocabulary, read_json, vocabulary_from_dict
from xaip.errors import InputError

DEFAULT_LEVEL = {"sokoban-switch": "switch-1", "sokoban-cells": "cells-1"}
LEVELS = {"sokoban-switch": ("switch-1", "switch-2"), "sokoban-cells": ("cells-1", "cells-2")}


def folder() -> Path:
    """Where the bundled levels, plans, foils and vocabularies live."""
    return Path(str(resources.files("xaip") / "domains" / "sokoban"))


def bundled_files(env: str, level: str | None = None,
                  variant: str | None = None) -> tuple[Path, Path, Path]:
    """``(level, plan, foil)`` files of a bundled example (a ``<level>.<variant>-foil.txt``
    wins over ``<level>.foil.txt``)."""
    if env not in LEVELS:
        raise InputError(f"unknown environment {env!r} (one of {', '.join(LEVELS)})")
    name = level or DEFAULT_LEVEL[env]
    if name not in LEVELS[env]:
        raise InputError(f"no bundled level {name!r} for {env} (one of "
                         f"{', '.join(LEVELS[env])})")
    base = folder()
    foil = base / f"{name}.{variant}-foil.txt"
    if not foil.exists():
        foil = base / f"{name}.foil.txt"
    return base / f"{name}.txt", base / f"{name}.plan.txt", foil


def load_query(env: str, level: str | Path, plan: str | Path, foil: str | Path,
               variant: str | None = None, vocabulary: str | Path | None = None) -> Query:
    """A :class:`Query` from files; the vocabulary defaults to the whole Sokoban library."""
    variant = variant or VARIANTS.get(env, ("precondition",))[0]
    grid = read_level(level)
    sim = Sokoban(grid, env, variant)
    plan_steps, foil_steps = read_actions(plan), read_actions(foil)
    if vocabulary is None:
        return Query(sim, plan_steps, foil_steps, default_vocabulary(grid))
    from xaip.concepts.sokoban_screen import EXTRA_KEYS, learned_sokoban_vocabulary

    data = read_json(vocabulary)
    vocab = vocabulary_from_dict(data, grid, str(vocabulary), extra_keys=EXTRA_KEYS)
    if isinstance(data, dict) and data.get("classifier", "exact") != "exact":
        # learned concepts train on random walks around the plan's and the foil's states
        starts: list[Hashable] = []
        box: Any = sim  # a Sokoban is a black box (its ``name`` is a read-only property)
        for steps in (plan_steps, foil_steps):
            starts.extend(run_trace(box, steps).states)
        vocab = learned_sokoban_vocabulary(data, vocab, grid, sim,
                                           tuple(dict.fromkeys(starts)), str(vocabulary))
    else:
        vocab = learned_sokoban_vocabulary(data, vocab, grid, sim, (), str(vocabulary))
    return Query(sim, plan_steps, foil_steps, vocab)


def bundled(env: str = "sokoban-switch", level: str | None = None,
            variant: str | None = None, vocabulary: str | Path | None = None) -> Query:
    """A bundled example as a :class:`Query` (default: the first level of ``env``)."""
    variant = variant or VARIANTS.get(env, ("precondition",))[0]
    files = bundled_files(env, level, variant)
    return load_query(env, *files, variant=variant, vocabulary=vocabulary)
