"""Planning domains that ship with xaip: bundled example files and benchmark generators.

Why our own: the classic benchmark families (blocksworld, gripper, logistics) are the
common ground of planning papers, and tests, benchmarks and tutorials need instances of
any size on demand. The domains here are written from their published IPC semantics and
the generators are ours, so everything under this package is MIT-licensed.
"""

from xaip.domains.generators import (
    BLOCKSWORLD_DOMAIN,
    GRIPPER_DOMAIN,
    LOGISTICS_DOMAIN,
    blocksworld,
    gripper,
    gripper_optimal_length,
    logistics,
    random_towers,
)

__all__ = [
    "BLOCKSWORLD_DOMAIN",
    "GRIPPER_DOMAIN",
    "LOGISTICS_DOMAIN",
    "blocksworld",
    "gripper",
    "gripper_optimal_length",
    "logistics",
    "random_towers",
]
