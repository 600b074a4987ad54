"""Learning from watching (book ch. 7 §7.4, B05): a demonstrated effect updates her model.

Why: the book's watched execution lets an observed effect update not only her belief
about the fact but "even the meta-fluent provided the human doesn't hypothesize a
conditional effect": once she has *seen* what an action does, that part of the robot's
model needs no explanation any more. ``BalancedProblem.learn_from_watching`` turns it on.

The rule (one definition, used by the MEGA* compilation, the model-space search's
:mod:`xaip.balanced.learning_space`, the checker and the docs; the differential oracle
has its own copy written from the same words). She watches the
robot execute ground action ``a(o…)``; she *sees* every fact of an observable predicate
the robot's step asserts (its add and delete effects, fired conditional effects
included), with its real value after the step (:mod:`xaip.balanced.epistemic`). For
each candidate edit about an **effect** of schema ``a`` (the features the two models
disagree on; preconditions, costs, initial facts and goals are never learned) whose atom,
instantiated with ``o…``, is such a seen fact ``f``:

* the robot has the effect and she does not (op ``add``): she learns it when ``f`` ends
  with the effect's value (true for an add effect, false for a delete effect);
* she has the effect and the robot does not (op ``remove``): she unlearns it when ``f``
  ends with the *opposite* value (she saw the action make ``f`` false, so it does not
  add ``f``).

Learning only ever moves her model towards the robot's, so after the plan her model is
``M^R_h + E ∪ L`` where ``E`` is what was explained (and paid for) and ``L`` what was
demonstrated (free). A learned edit takes effect from the next step on (her belief of
the seen fact is already its real value), and the plan is judged in her final model:
``C*`` and the explicability test are those of ``M^R_h + E ∪ L``. The set ``L`` depends
on the robot's execution only, never on what she believes.
"""

from __future__ import annotations

from collections.abc import Mapping

from xaip.balanced.objectives import BalancedProblem
from xaip.planning.features import FeatureKind
from xaip.planning.task import GroundAction, State, Task, bits

Fact = tuple[str, ...]  # (predicate, object…)
_LEARNABLE = (FeatureKind.ADD_EFFECT, FeatureKind.DELETE_EFFECT)


class Rules:
    """The learnable candidates of a problem, by action schema."""

    def __init__(self, problem: BalancedProblem) -> None:
        self.by_schema: dict[str, list[tuple[int, tuple[str, ...], Fact, bool, bool]]] = {}
        if not problem.learn_from_watching:
            return
        for index, edit in enumerate(problem.differences):
            feature = edit.feature
            atom = feature.atom
            if feature.kind not in _LEARNABLE or atom is None \
                    or atom.predicate not in problem.observable:
                continue
            self.by_schema.setdefault(feature.action, []).append(
                (index, feature.parameters, (atom.predicate, *atom.args),
                 feature.kind is FeatureKind.ADD_EFFECT, edit.op == "add"))

    def learned(self, schema: str, args: tuple[str, ...], seen: Mapping[Fact, bool]) -> int:
        """The candidates (a bit mask over indices of ``problem.differences``) she learns
        by watching ``schema(args)``, given the seen facts and their values after it."""
        out = 0
        for index, parameters, atom, adds, robot_has in self.by_schema.get(schema, ()):
            if len(parameters) != len(args):
                continue
            binding = dict(zip(parameters, args, strict=True))
            fact = (atom[0], *(binding.get(a, a) for a in atom[1:]))
            value = seen.get(fact)
            if value is not None and (value == adds) == robot_has:
                out |= 1 << index
        return out


class Learner:
    """:class:`Rules` on the robot's grounded task: what one step of it teaches.

    The seen facts come from the robot's *lifted* effects bound to the step's objects,
    not from its grounding, which drops facts the robot's world never makes true (a
    delete of such a fact is still seen: it stays false). Only for models whose actions
    are conjunctions of literals (what MEGA* compiles), so the effects do not depend on
    the state."""

    def __init__(self, problem: BalancedProblem, robot: Task) -> None:
        self.rules = Rules(problem)
        self.robot = robot
        self.effects: dict[str, list[tuple[tuple[str, ...], Fact, bool]]] = {}
        if not self.rules.by_schema:
            return
        for feature in problem.space.robot_features:
            atom = feature.atom
            if feature.kind in _LEARNABLE and atom is not None \
                    and atom.predicate in problem.observable:
                self.effects.setdefault(feature.action, []).append(
                    (feature.parameters, (atom.predicate, *atom.args),
                     feature.kind is FeatureKind.ADD_EFFECT))

    @property
    def active(self) -> bool:
        return bool(self.rules.by_schema)

    def step(self, action: GroundAction, state: State, after: State) -> int:
        """The candidates learned by watching ``action`` (from ``state`` to ``after``;
        conjunctive effects do not depend on them)."""
        if action.schema not in self.rules.by_schema:
            return 0
        seen: dict[Fact, bool] = {}
        for parameters, atom, adds in self.effects.get(action.schema, ()):
            binding = dict(zip(parameters, action.args, strict=True))
            fact = (atom[0], *(binding.get(a, a) for a in atom[1:]))
            seen[fact] = seen.get(fact, False) or adds  # an add wins over a delete
        return self.rules.learned(action.schema, action.args, seen)

    def along(self, plan: tuple[str, ...]) -> int | None:
        """Everything learned along ``plan`` (``None``: not executable by the robot)."""
        state, learned = self.robot.init, 0
        for name in plan:
            action = next((self.robot.actions[i] for i in self.robot.action_index.get(name, ())
                           if self.robot.actions[i].applicable(state)), None)
            if action is None:
                return None
            after = action.apply(state)
            learned |= self.step(action, state, after)
            state = after
        return learned


def indices(mask: int) -> tuple[int, ...]:
    return tuple(bits(mask))
