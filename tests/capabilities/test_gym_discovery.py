"""Algorithm 1 on a Gymnasium-style environment through :class:`GymSimulator`.

The environment is the lamp world behind the Gymnasium API (``reset``, a five-value
``step``, a discrete ``action_space``, ``get_state``/``set_state``), so the result can be
compared with discovery on the lamp world's own simulator: the adapter must not change
what is learned.
"""

from __future__ import annotations

from typing import Any

from xaip.agents import SearchAgent
from xaip.agents.gym import GymSimulator, GymState
from xaip.capabilities.checks import check_consistency
from xaip.capabilities.discovery import DiscoveryConfig, discover
from xaip.planning.pddl.model import Atom
from xaip.vocab import Predicate, Vocabulary

from .conftest import Lamp, LampWorld, lamp_refine, lamp_vocabulary

ACTIONS = ("left", "right", "switch", "grab", "place")


class Discrete:
    def __init__(self, n: int) -> None:
        self.n = n


class LampEnv:
    """The lamp world as a Gymnasium environment: observations are the robot's cell;
    an action that does not apply leaves the state as it is (as many Gym games do)."""

    def __init__(self) -> None:
        self.world = LampWorld()
        self.action_space = Discrete(len(ACTIONS))
        self.state = self.world.start

    def reset(self, seed: int | None = None) -> tuple[int, dict[str, Any]]:
        self.state = self.world.start
        return self.state.robot, {}

    def step(self, action: int) -> tuple[int, float, bool, bool, dict[str, Any]]:
        self.state = self.world.step(self.state, ACTIONS[action])
        return self.state.robot, 0.0, False, False, {}

    def get_state(self) -> Lamp:
        return self.state

    def set_state(self, state: Lamp) -> None:
        self.state = state

    def render(self) -> str:
        return self.world.render_text(self.state)


def gym_vocabulary() -> Vocabulary:
    """The lamp vocabulary read through the adapter's states (the snapshot is the Lamp)."""
    plain = lamp_vocabulary()

    def lift(pred: Predicate) -> Predicate:
        def function(state: GymState) -> Any:
            return pred.function(state.snapshot)
        return Predicate(pred.name, pred.parameters, function, pred.style, pred.description)

    return Vocabulary([lift(p) for p in plain.predicates], [lift(t) for t in plain.types],
                      name="lamp-gym")


def gym_refine(atoms: frozenset[Atom], like: Any) -> GymState | None:
    lamp = lamp_refine(atoms, like.snapshot if like is not None else None)
    return None if lamp is None else GymState(lamp)


def _shape(model: Any) -> set[tuple[Any, ...]]:
    return {(len(c.parameters), tuple(str(p) for p in c.preconditions),
             tuple(str(e) for e in c.effects)) for c in model.capabilities}


def test_discovery_through_the_gym_adapter_learns_what_the_simulator_shows() -> None:
    config = DiscoveryConfig(lifted_types=("cell",), tasks=6, random_states=30)
    simulator = GymSimulator(LampEnv(), action_names=ACTIONS)
    through_gym = discover(simulator, SearchAgent(simulator), gym_vocabulary(),
                           refine=gym_refine, config=config)
    world = LampWorld()
    direct = discover(world, SearchAgent(world), lamp_vocabulary(), refine=lamp_refine,
                      config=config)
    assert through_gym.stats.queries > 0
    # the adapter adds no behaviour of its own: the same capabilities are learned
    assert _shape(through_gym.model) == _shape(direct.model)
    effects = {frozenset(str(lit) for lit in c.effects) for c in through_gym.model.capabilities}
    assert frozenset({"(light)"}) in effects
    assert any("(holding)" in e for e in effects)
    traces = [t.states for t in through_gym.traces]
    assert check_consistency(through_gym.model, gym_vocabulary(), traces).consistent
    assert all(isinstance(s, GymState) for t in traces for s in t)
