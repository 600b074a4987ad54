"""The CI differential run: ``CI_INSTANCES`` seeded random instances per family, zero
disagreements with the brute-force oracles (see ``tests/differential/__init__.py``)."""

from __future__ import annotations

import pytest

from tests.differential.registry import FAMILIES, load


@pytest.mark.parametrize("family", FAMILIES)
def test_family_agrees_with_brute_force(family: str) -> None:
    module = load(family)
    assert module is not None, f"{family} has no differential module (tests/differential/)"
    count = module.CI_INSTANCES
    assert count >= 200, f"{family}: CI must check at least 200 instances"
    disagreements = []
    for seed in range(count):
        problem = module.check(seed)
        if problem is not None:
            disagreements.append(f"seed {seed}: {problem}")
    assert not disagreements, f"{family}: {len(disagreements)} disagreements\n" + "\n".join(
        disagreements[:20])
