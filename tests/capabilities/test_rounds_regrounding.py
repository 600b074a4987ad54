"""Re-grounding's capabilities built as units (issue 26, scaling:
:mod:`xaip.capabilities.regrounding`): the same capabilities as building them one after
another in the main process, here and on workers."""

from __future__ import annotations

from typing import Any

import pytest

from xaip.capabilities import discovery, regrounding
from xaip.capabilities.discovery import discover_game
from xaip.capabilities.split import grounded_caps


def _tables(cap: Any) -> Any:
    return (cap.name, cap.atoms, cap.pre, cap.eff, cap.obs_pre, cap.obs_eff, cap.never_true,
            cap.instances, cap.executions, cap.seen_bindings, cap.notes, cap.example)


@pytest.mark.parametrize("executor", ["serial", "processes"])
def test_regrounding_in_units_builds_what_grounded_caps_builds(
        monkeypatch: pytest.MonkeyPatch, executor: str) -> None:
    compared: list[int] = []
    original = regrounding.grounded_units

    def both(engine: Any, caps: Any, sources: Any, objects: Any, predicates: Any,
             pool: Any) -> Any:
        expected = grounded_caps(caps, sources, objects, predicates, pool)
        out = original(engine, caps, sources, objects, predicates, pool)
        assert [_tables(c) for c in out] == [_tables(c) for c in expected]
        compared.append(len(out))
        return out

    monkeypatch.setattr(discovery, "grounded_units", both)
    result, _ = discover_game("cookmepasta", 4, 4, seed=0, executor=executor,
                              workers=None if executor == "serial" else 2)
    assert compared and compared[0] > 1
    if executor == "serial":  # each capability built is a unit of a batch
        assert any(len(batch) == compared[0] for batch in result.unit_batches)
