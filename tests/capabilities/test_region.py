"""The listing of what the simulator reaches (:mod:`xaip.capabilities.region`) against
brute force: closedness and the reachable abstractions of every listed state, on the lamp
world and on random graphs, with the listing cut short and not."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.capabilities.conftest import LampWorld, lamp_vocabulary, reachable
from xaip.capabilities.compact import has
from xaip.capabilities.region import explore
from xaip.capabilities.traces import Abstractor
from xaip.planning.pddl.model import Atom
from xaip.vocab import Predicate, Vocabulary


class GraphWorld:
    """A simulator over a random directed graph: states are node numbers, each labelled
    with one of a few colours (its abstraction)."""

    def __init__(self, edges: list[list[int]]) -> None:
        self.edges = edges

    def actions(self, state: int) -> tuple[int, ...]:
        return tuple(range(len(self.edges[state])))

    def step(self, state: int, action: int) -> int:
        return self.edges[state][action]


def _graph(seed: int) -> tuple[GraphWorld, list[int]]:
    rng = random.Random(seed)
    n = rng.randint(2, 30)
    edges = [[rng.randrange(n) for _ in range(rng.choice((0, 1, 1, 2, 3)))] for _ in range(n)]
    colours = [rng.randrange(4) for _ in range(n)]
    return GraphWorld(edges), colours


def _colour_vocabulary(colours: list[int]) -> Vocabulary:
    return Vocabulary([Predicate("colour", (), lambda s: [()] if colours[s] else [], "set",
                                 "the node is coloured"),
                       Predicate("tone", ("shade",), lambda s: [(f"k{colours[s]}",)],
                                 "set", "the node's shade is ?k")],
                      [Predicate("shade", ("shade",), lambda s: ("k0", "k1", "k2", "k3"),
                                 "type", "a shade")], name="graph")



def _agrees_with_brute_force(world: Any, abstractor: Abstractor, region: Any) -> None:
    listed = set(region.nodes)
    for node, state in enumerate(region.nodes):
        future = reachable(world, state)
        closed = future <= listed and all(region.edges[region.index[s]] is not None
                                          for s in future)
        assert region.closed[node] == closed, state
        truth = {abstractor.fluent(s) for s in future}
        got = {region.table.decode(region.abstractions[i])
               for i in range(len(region.abstractions)) if has(region.reach[node], i)}
        if closed:  # every closed state is abstracted, and what it reaches is exact
            assert region.fluent(node) == abstractor.fluent(state)
            assert got == truth, state
        else:  # not computed where the listing was cut (the guard reads closed ones only)
            assert got == set(), state


def test_the_lamp_world_is_listed_whole_and_closed() -> None:
    world = LampWorld()
    abstractor = Abstractor(lamp_vocabulary())
    region = explore(world, [world.start], [], abstractor)
    assert set(region.nodes) == reachable(world, world.start)
    assert all(region.closed)
    _agrees_with_brute_force(world, abstractor, region)
    # the light only turns on: from a lit state no dark one is reachable
    lit = world.start._replace(light=True)
    dark = abstractor.fluent(world.start)
    place = {p.concrete: p for p in region.places()}
    assert lit in region.index and not any(
        p.reaches(dark) for p in region.places() if Atom("light") in p.fluent)
    assert place  # every abstraction of a closed state has a place


@pytest.mark.parametrize("seed", range(60))
def test_random_graphs_agree_with_brute_force(seed: int) -> None:
    world, colours = _graph(seed)
    abstractor = Abstractor(_colour_vocabulary(colours))
    rng = random.Random(seed)
    n = len(colours)
    roots = rng.sample(range(n), rng.randint(1, 2))
    known = rng.sample(range(n), rng.randint(0, 3))
    region = explore(world, roots, known, abstractor, root_visits=rng.choice((2, 5, 1000)),
                     visits=rng.choice((1, 4, 1000)), depth=rng.choice((0, 1, 3)))
    _agrees_with_brute_force(world, abstractor, region)
    for place in region.places():  # what every state of the abstraction reaches
        members = [s for node, s in enumerate(region.nodes)
                   if region.closed[node] and region.fluent(node) == place.fluent]
        common = set.intersection(*({abstractor.fluent(x) for x in reachable(world, s)}
                                    for s in members))
        assert {f for f in map(region.table.decode, region.abstractions)
                if place.reaches(f)} == common
        assert place.dead == any(not world.actions(s) for s in members)
