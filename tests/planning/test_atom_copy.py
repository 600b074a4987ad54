"""Atoms are shared by deep copies (issue 26: discovery's capability splits deep-copy
states full of atoms; rebuilding each immutable atom cost a quarter of a run's CPU)."""

from __future__ import annotations

import copy
import dataclasses

import pytest

from xaip.planning.pddl.model import Atom


def test_a_deep_copy_shares_atoms_and_copies_what_holds_them() -> None:
    atom = Atom("at", ("a", "b"))
    holder = {"pre": {atom: {"pos"}}, "atoms": [atom], "state": frozenset({atom})}
    copied = copy.deepcopy(holder)
    assert copy.deepcopy(atom) is atom
    assert copied == holder
    assert copied["atoms"][0] is atom
    copied["pre"][atom].add("neg")  # the containers are still copies
    copied["atoms"].append(Atom("clear", ("a",)))
    assert holder["pre"][atom] == {"pos"} and holder["atoms"] == [atom]


def test_atoms_cannot_change_so_sharing_them_is_safe() -> None:
    atom = Atom("at", ("a",))
    with pytest.raises(dataclasses.FrozenInstanceError):
        atom.predicate = "on"  # type: ignore[misc]


def test_discovery_learns_the_same_with_atoms_rebuilt(monkeypatch: pytest.MonkeyPatch) -> None:
    """Capability splits (xaip.capabilities.gameover) copy capabilities and then change the
    copies: sharing the atoms must not change what is learned."""
    from xaip.capabilities import gameover
    from xaip.capabilities.discovery import discover_game

    parts: list[str] = []
    real_part = gameover._part

    def counted(cap: object, suffix: str, atom: Atom, value: bool) -> object:
        parts.append(suffix)
        return real_part(cap, suffix, atom, value)  # type: ignore[arg-type]

    monkeypatch.setattr(gameover, "_part", counted)

    def learned() -> tuple[object, ...]:
        result, _ = discover_game("cookmepasta", 4, 4, seed=1)
        return ([c.text for c in result.model.capabilities],
                [(q.capability, q.start, q.goal, q.reached) for q in result.queries])

    shared = learned()
    assert parts, "this run must split a capability (else it tests nothing)"
    monkeypatch.delattr(Atom, "__deepcopy__")  # deepcopy rebuilds every atom again
    assert learned() == shared
