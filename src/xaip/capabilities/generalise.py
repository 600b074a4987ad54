"""Testing a lifted capability where it was never seen: does it hold for other objects?

Why: lifting (Alg. 1 lines 3-4) turns the cells of observed transitions into parameters,
which claims the capability for *every* binding whose precondition holds (Def. 7). That is
sound only when the vocabulary can say where the capability applies (Thm. 3: the model is
"expressible"). The games' vocabularies cannot say which cells are adjacent or connected:
"the player can go from cell2 to cell1 whenever cell1 is clear" was learned from moves
the agent made, and is false for a clear cell walled off behind a locked door, or for a
push along a diagonal. The query phase tests one binding per tuple, so it never sees
that; the independent checker does (``discover cookmepasta --grid 5x5 --seed 3``:
12/20 sampled predictions realised).

After the query phase, :func:`test_generalisation` asks the agent, for each lifted
capability, to apply it with a few bindings it was never seen with, in known states where
its learned precondition holds. A failure is a counterexample to the lifted claim: the
capability is marked unreliable with it (the card says so), never silently kept as if it
held everywhere. The checker stays independent: it searches the simulator, not the agent.
"""

from __future__ import annotations

import random

from xaip.capabilities.candidates import ABSENT, POS
from xaip.capabilities.matching import Requirement, compile_requirements
from xaip.capabilities.pal import CapState, default_pre
from xaip.capabilities.queries import QueryEngine
from xaip.capabilities.waypoints import AbstractGoal

#: Unseen bindings asked per lifted capability.
PER_CAPABILITY = 8
#: Bindings of one state considered when choosing an unseen one.
CHOICES = 16


def _precondition(cap: CapState) -> list[Requirement]:
    out: list[Requirement] = []
    for atom in cap.atoms:
        mode = default_pre(cap, atom)
        if mode != ABSENT:
            out.append((atom, mode == POS))
    return out


def test_generalisation(engine: QueryEngine, seed: int = 0,
                        per_capability: int = PER_CAPABILITY) -> int:
    """Ask the agent to apply every lifted capability with up to ``per_capability`` unseen
    bindings (module docstring); returns how many capabilities a counterexample refuted."""
    rng = random.Random(f"generalise:{seed}")
    refuted = 0
    states = list(engine.pool.states)
    for cap in engine.caps:
        if not cap.params:
            continue  # grounded: claims nothing beyond what it was seen doing
        compiled = compile_requirements(_precondition(cap))
        seen = [dict(b) for b in cap.seen_bindings]
        order = states[:]
        rng.shuffle(order)
        asked = 0
        counterexample = None
        for ps in order:
            if asked >= per_capability:
                break
            options = []
            for binding in engine.matcher.match(cap, compiled, ps, {}):
                if binding not in seen:
                    options.append(dict(binding))
                if len(options) >= CHOICES:
                    break
            rng.shuffle(options)
            for binding in options:
                query = engine._make_query(cap, binding, ps.fluent, ps.concrete, {}, None,
                                           cap.atoms[0])
                if query is None:
                    continue  # the prediction describes no state of the game
                step = query.steps[-1]
                goal = engine.refine(step.target, query.start)
                if goal is None:
                    continue
                reached, arrived = engine.ask(cap, query.start, goal)
                if reached is None:
                    continue  # the agent ran out of budget: no evidence either way
                asked += 1
                seen.append(binding)
                if reached and not isinstance(arrived, AbstractGoal):
                    engine.pool.add(arrived)
                if not reached and counterexample is None:
                    counterexample = binding
                break
        if counterexample is not None:
            refuted += 1
            shown = ", ".join(f"{v[1:]}={o}" for v, o in sorted(counterexample.items()))
            cap.mark(f"does not hold for every binding: the agent could not apply it with "
                     f"{shown} although its precondition held there (the vocabulary cannot "
                     "say where it applies, e.g. which cells are adjacent or connected; "
                     "--grounded keeps cells as constants)")
    return refuted
