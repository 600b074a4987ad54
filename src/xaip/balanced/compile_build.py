"""Building the MEGA* compilation: the two models' features, ground action by ground
action, turned into compiled actions (see :mod:`xaip.balanced.compile` for the meaning).

Why a module of its own: the compiled task's definition and reading plans back are what
users need; this is the bookkeeping that produces it. Bits are first collected
symbolically (``("b", fact)`` for a belief, ``("s", n)`` for a belief about a static
atom, ``("mu", candidate)``) because the number of static atoms the person's
preconditions mention is only known once every action has been seen.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from fractions import Fraction

from xaip.balanced.compile import (
    EXPLAIN,
    FINISH,
    START,
    TASK,
    CompiledAction,
    CompiledTask,
    Guard,
    WhenMu,
    scale_of,
)
from xaip.balanced.compile_when import (
    Condition,
    Item,
    LiftedWhen,
    Ref,
    bind,
    prioritised,
    union_layout,
)
from xaip.balanced.learning import Learner
from xaip.balanced.objectives import BalancedProblem, feature_name
from xaip.errors import UnsupportedFeature
from xaip.planning.features import Feature, FeatureKind
from xaip.planning.pddl.model import Atom
from xaip.planning.task import ConditionalEffect, GroundAction, Task, bits

_K = FeatureKind
_LITERAL = (_K.PRECONDITION, _K.NEGATIVE_PRECONDITION, _K.ADD_EFFECT, _K.DELETE_EFFECT)


class Builder:
    """Grounds the two models' features action by action into compiled actions."""

    def __init__(self, problem: BalancedProblem, alpha: Fraction,
                 explain_costs: Sequence[Fraction], explain_first: bool,
                 stop_at_goal: bool) -> None:
        space = problem.space
        self.problem, self.space = problem, space
        self.alpha, self.explain_costs = alpha, explain_costs
        self.explain_first, self.stop_at_goal = explain_first, stop_at_goal
        self.whens: dict[str, tuple[LiftedWhen, ...]] = {}
        if space.compiled:
            everything = tuple(range(len(space.candidates)))
            # M^R_h + D is M^R on the space's facts, priced as the robot prices it
            self.robot_task = robot_priced(space.task(everything), problem.robot_task)
            self.facts: tuple[Atom, ...] = space.facts
            self.fact_index: dict[Atom, int] = space.fact_index
            self.static_predicates: frozenset[str] = space.static_predicates
        else:  # conditional effects (B05): the compilation grounds the union itself
            if problem.learn_from_watching:
                raise UnsupportedFeature(
                    "learning from watching is compiled for models without conditional "
                    "effects (she could hypothesise a conditional effect)")
            layout = union_layout(problem, {a.name: a.cost for a in problem.robot_task.actions})
            self.robot_task = layout.robot_task
            self.facts, self.fact_index = layout.facts, layout.fact_index
            self.static_predicates = layout.static_predicates
            self.whens = layout.whens
        self.world = len(self.facts)
        self.candidate_of: dict[tuple[FeatureKind, Feature], int] = {}
        for i, candidate in enumerate(space.candidates):
            if candidate.instance is not None:
                raise UnsupportedFeature("MEGA* compiles lifted explanations only")
            self.candidate_of[(candidate.lifted.feature.kind, candidate.lifted.feature)] = i
        self.mu_offset = 0  # set once the static beliefs are known
        self.static_index: dict[Atom, int] = {}
        self.human_by_action = _by_action(space.human_features)
        self.robot_by_action = _by_action(space.robot_features)

    def parameters_of(self, schema: str) -> tuple[str, ...]:
        """The robot's parameter names of ``schema`` (conditional effects are bound
        with them)."""
        for action in self.problem.robot_domain.actions:
            if action.name == schema:
                return tuple(p.name for p in action.parameters)
        return ()

    # -- the person's side, feature by feature

    def _slot(self, feature: Feature, args: tuple[str, ...]) -> tuple[str, int]:
        """Where a feature's atom lands: ``("bit", belief offset)``, ``("static", static
        belief number)``, or ``("true"|"false", 0)`` for atoms no model can change."""
        assert feature.atom is not None
        mapping = dict(zip(feature.parameters, args, strict=True))
        atom = Atom(feature.atom.predicate, tuple(mapping.get(a, a) for a in feature.atom.args))
        if atom.predicate == "=":
            return ("true" if atom.args[0] == atom.args[1] else "false"), 0
        return self.atom_slot(atom)

    def atom_slot(self, atom: Atom) -> tuple[str, int]:
        """Where a ground atom lands (see :meth:`_slot`)."""
        if atom.predicate == "=":
            return ("true" if atom.args[0] == atom.args[1] else "false"), 0
        index = self.fact_index.get(atom)
        if index is not None:
            return "bit", index
        if atom.predicate in self.static_predicates:
            if atom not in self.static_index:
                self.static_index[atom] = len(self.static_index)
            return "static", self.static_index[atom]
        return "false", 0  # a fluent atom no model reaches

    def _split(self, schema: str) -> list[tuple[Feature, int | None]]:
        """The literal features of ``schema`` in either model, each with the candidate
        that toggles it (``None``: both models agree)."""
        human = self.human_by_action.get(schema, set())
        robot = self.robot_by_action.get(schema, set())
        out: list[tuple[Feature, int | None]] = []
        for feature in sorted(human | robot):
            if feature.kind not in _LITERAL:
                continue
            if feature in human and feature in robot:
                out.append((feature, None))
            else:
                key = (feature.kind, feature)
                if key not in self.candidate_of:
                    raise UnsupportedFeature(f"the models differ in '{feature_name(feature)}' "
                                             "but it is not an explainable difference")
                out.append((feature, self.candidate_of[key]))
        return out


def robot_priced(task: Task, robot: Task) -> Task:
    """``task`` (the robot's actions on the model space's facts) with each action costing
    what it costs in ``robot``, the robot's own grounding.

    Why: the model space prices its tasks as the *person's* models (her problem's metric
    decides, :func:`xaip.planning.semantics.counts_action_costs`), but a task action of the
    compiled task costs the robot what the robot's domain and problem say. Actions the
    robot's own grounding never reaches cannot occur in a plan; they keep the cost that
    semantics gives them from the space (declared, or 1 when costs do not count)."""
    costs = {a.name: a.cost for a in robot.actions}

    def price(action: GroundAction) -> int:
        if action.name in costs:
            return costs[action.name]
        return action.cost if robot.has_costs else 1

    actions = tuple(a if price(a) == a.cost else replace(a, cost=price(a))
                    for a in task.actions)
    return replace(task, actions=actions, has_costs=robot.has_costs)


def _by_action(features: frozenset[Feature]) -> dict[str, set[Feature]]:
    out: dict[str, set[Feature]] = {}
    for feature in features:
        if feature.action:
            out.setdefault(feature.action, set()).add(feature)
    return out


class _Part:
    """Masks being collected for one compiled action (belief side, by symbolic bits)."""

    def __init__(self) -> None:
        self.pre: set[tuple[str, int]] = set()   # ("b"|"s"|"mu", index)
        self.neg: set[tuple[str, int]] = set()
        self.add: set[tuple[str, int]] = set()
        self.delete: set[tuple[str, int]] = set()
        self.guards: list[tuple[int, tuple[str, int], bool]] = []
        self.when: list[tuple[int, tuple[str, int], bool]] = []  # (mu, bit, adds?)
        self.impossible = False
        # conditional effects (B05, compile_when): world ones and prioritised belief ones,
        # as (condition, target, value) on symbolic bits; used bits set by the action
        self.conditional: list[tuple[Condition, Ref, bool]] = []
        self.used: set[Ref] = set()


def _belief_literal(part: _Part, feature: Feature, slot: tuple[str, int],
                    candidate: int | None) -> None:
    """Record what one feature of the person's model asks of, or does to, her beliefs."""
    code, index = slot
    bit = ("b" if code == "bit" else "s", index)
    kind = feature.kind
    if kind in (_K.PRECONDITION, _K.NEGATIVE_PRECONDITION):
        positive = kind is _K.PRECONDITION
        if code in ("true", "false"):
            holds = (code == "true") == positive
            if holds:
                return
            if candidate is None:
                part.impossible = True
            else:
                part.neg.add(("mu", candidate))  # believing the feature rules her action out
            return
        if candidate is None:
            (part.pre if positive else part.neg).add(bit)
        else:
            part.guards.append((candidate, bit, positive))
        return
    if code not in ("bit", "static"):
        return  # effects on atoms no model can change change nothing
    adds = kind is _K.ADD_EFFECT
    if candidate is None:
        (part.add if adds else part.delete).add(bit)
    else:
        part.when.append((candidate, bit, adds))


def assemble(b: Builder) -> CompiledTask:
    problem = b.problem
    differences = problem.differences
    scale = scale_of([b.alpha, *b.explain_costs])
    # 1. collect the parts symbolically (static beliefs are numbered on the way)
    task_parts: list[tuple[GroundAction, _Part, int | None, int]] = []
    observed = 0  # world facts she sees change while watching (B05)
    for index, atom in enumerate(b.facts):
        if atom.predicate in problem.observable:
            observed |= 1 << index
    learner = Learner(problem, b.robot_task)  # what watching teaches her (B05)
    inferable = _inferable(b, observed)  # facts whose "used" bit inference reads
    for action in b.robot_task.actions:
        args = action.args
        features = b._split(action.schema)
        human = b.human_by_action.get(action.schema, set())
        exists_for_her = any(f.kind is _K.COST for f in human)
        creators: list[int | None] = [None]
        if not exists_for_her:
            creators = [c for c in sorted({c for _, c in features if c is not None})
                        if differences[c].op == "add"]
        part = _Part()
        for feature, candidate in features:
            _belief_literal(part, feature, b._slot(feature, args), candidate)
        if part.impossible:
            continue
        if action.conditional:
            if not _conditional_beliefs(b, part, action, args, observed):
                continue
        elif observed:
            _watch(part, action, observed)
        if inferable:
            part.used = {("u", i) for i in bits(_mentions(action) & inferable)}
        learned = _learned(learner, action)
        for creator in creators:
            task_parts.append((action, part, creator, learned))
    start, finish = _Part(), _Part()
    for feature, candidate in _problem_split(b):
        assert feature.atom is not None
        slot = b._slot(feature, ())
        if feature.kind is _K.INIT:
            if slot[0] in ("bit", "static"):
                ref = ("b" if slot[0] == "bit" else "s", slot[1])
                if candidate is None:
                    start.add.add(ref)
                else:
                    start.when.append((candidate, ref, True))
        elif feature.kind in (_K.GOAL, _K.NEGATIVE_GOAL):
            as_pre = Feature(_K.PRECONDITION if feature.kind is _K.GOAL
                             else _K.NEGATIVE_PRECONDITION, atom=feature.atom)
            _belief_literal(finish, as_pre, slot, candidate)
    # 2. number the bits
    world = b.world
    statics = tuple(sorted(b.static_index, key=b.static_index.__getitem__))
    mu_offset = 2 * world + len(statics)
    n_candidates = len(differences)
    p_init = mu_offset + n_candidates
    used_bits = {fact: p_init + 3 + k for k, fact in enumerate(bits(inferable))}

    def bit(ref: tuple[str, int]) -> int:
        kind, index = ref
        if kind == "w":
            return index
        if kind == "b":
            return world + index
        if kind == "s":
            return 2 * world + index
        if kind == "u":
            return used_bits[index]
        return mu_offset + index

    def conditional(part: _Part) -> tuple[ConditionalEffect, ...]:
        return tuple(ConditionalEffect(mask(set(pos)), mask(set(neg)),
                                       1 << bit(target) if value else 0,
                                       0 if value else 1 << bit(target))
                     for (pos, neg), target, value in part.conditional)

    def mask(refs: set[tuple[str, int]]) -> int:
        out = 0
        for ref in refs:
            out |= 1 << bit(ref)
        return out

    def guards(part: _Part) -> tuple[Guard, ...]:
        return tuple(Guard(mu_offset + c, bit(ref), positive) for c, ref, positive in
                     sorted(part.guards))

    def whens(part: _Part) -> tuple[WhenMu, ...]:
        return tuple(WhenMu(mu_offset + c, 1 << bit(ref) if adds else 0,
                            0 if adds else 1 << bit(ref))
                     for c, ref, adds in sorted(part.when))

    names = _FactNames()
    facts: list[str] = []
    descriptions: list[str] = []
    for atom in b.facts:
        facts.append(names.make("w", str(atom)))
        descriptions.append(f"world: {atom}")
    for atom in (*b.facts, *statics):
        facts.append(names.make("b", str(atom)))
        descriptions.append(f"she believes {atom}")
    for i, edit in enumerate(differences):
        facts.append(names.make("mu", f"{i} {edit.feature.kind.value}"))
        descriptions.append(f"she believes the model has: {feature_name(edit.feature)}")
    for control in ("p-init", "p-started", "p-goal"):
        facts.append(names.make(control, ""))
        descriptions.append(control)
    for fact in used_bits:
        facts.append(names.make("u", str(b.facts[fact])))
        descriptions.append(f"an earlier step used {b.facts[fact]}")
    # 3. the actions
    actions: list[CompiledAction] = []
    p_bits = {"init": 1 << p_init, "started": 1 << (p_init + 1), "goal": 1 << (p_init + 2)}
    robot_init = b.robot_task.init
    actions.append(CompiledAction(
        "start", START, "start", pre=p_bits["init"], neg_pre=0,
        add=p_bits["started"] | robot_init | mask(start.add), delete=p_bits["init"], cost=0,
        when=whens(start)))
    goal = b.robot_task.goal
    actions.append(CompiledAction(
        "finish", FINISH, "finish", pre=p_bits["started"] | goal | mask(finish.pre),
        neg_pre=b.robot_task.goal_neg | mask(finish.neg) | p_bits["goal"],
        add=p_bits["goal"], delete=0, cost=0, guards=guards(finish)))
    used: dict[str, int] = {}
    for action, part, creator, learned in task_parts:
        pre = action.pre | mask(part.pre) | p_bits["started"]
        if creator is not None:
            pre |= 1 << (mu_offset + creator)
        # a demonstrated edit sets its meta fluent to the robot's value (learning)
        learn_on = learn_off = 0
        for c in bits(learned):
            if differences[c].op == "add":
                learn_on |= 1 << (mu_offset + c)
            else:
                learn_off |= 1 << (mu_offset + c)
        name = names.make("do", action.name)
        used[action.name] = used.get(action.name, 0) + 1
        cost = b.alpha * action.cost * scale
        actions.append(CompiledAction(
            name, TASK, action.name, pre=pre, neg_pre=action.neg_pre | mask(part.neg),
            add=action.add | mask(part.add) | mask(part.used) | learn_on,
            delete=action.delete | mask(part.delete) | learn_off,
            cost=int(cost), guards=guards(part), when=whens(part), robot_cost=action.cost,
            conditional=conditional(part)))
    for i, edit in enumerate(differences):
        mu = 1 << (mu_offset + i)
        early = b.explain_first or not edit.feature.is_action_feature
        robot_has = edit.op == "add"
        pre = (p_bits["init"] if early else 0) | (0 if robot_has else mu)
        actions.append(CompiledAction(
            names.make("explain", f"{i} {feature_name(edit.feature)}"), EXPLAIN,
            feature_name(edit.feature), pre=pre,
            neg_pre=(mu if robot_has else 0) | (0 if early else p_bits["goal"]),
            add=mu if robot_has else 0, delete=0 if robot_has else mu,
            cost=int(b.explain_costs[i] * scale), candidate=i))
    init = 1 << p_init
    for i in range(n_candidates):
        if _believed_initially(b, i):
            init |= 1 << (mu_offset + i)
    return CompiledTask(
        problem, tuple(facts), tuple(descriptions), world, statics, mu_offset,
        tuple(actions), init, goal, b.robot_task.goal_neg, b.robot_task, scale, b.alpha,
        b.explain_first, b.stop_at_goal)


def _watch(part: _Part, action: GroundAction, observed: int) -> None:
    """Watched execution (book ch. 7 §7.4; :mod:`xaip.balanced.epistemic`): every
    observable fact the robot's action asserts takes its real value in her beliefs,
    whatever her model predicted for it; her model still decides everything else.
    (Conditional effects, whose fired conditions she could infer, do not occur in the
    models the compilation accepts.)"""
    touched = (action.add | action.delete) & observed
    seen = {("b", i) for i in range(touched.bit_length()) if touched >> i & 1}
    part.add -= seen
    part.delete -= seen
    part.when = [w for w in part.when if w[1] not in seen]
    for kind, index in seen:
        if action.add >> index & 1:
            part.add.add((kind, index))
        else:
            part.delete.add((kind, index))


def _learned(learner: Learner, action: GroundAction) -> int:
    """The candidates she learns by watching ``action`` (:mod:`xaip.balanced.learning`;
    the compiled models have no conditional effects, so the same in every state)."""
    return learner.step(action, 0, 0) if learner.active else 0


def _inferable(b: Builder, observed: int) -> int:
    """The world facts in the condition of a conditional effect she can see fire (B05,
    ``infer_conditions``): the facts whose "used by an earlier step" bit inference reads
    (none without inference)."""
    out = 0
    if not b.problem.infer_conditions:
        return out
    for action in b.robot_task.actions:
        for effect in action.conditional:
            if (effect.add | effect.delete) & observed:
                out |= effect.cond_pos | effect.cond_neg
    return out


def _mentions(action: GroundAction) -> int:
    """The world facts a step uses (as :meth:`~xaip.balanced.epistemic.Watcher.mentions`)."""
    mask = action.pre | action.neg_pre | action.add | action.delete
    for effect in action.conditional:
        mask |= effect.cond_pos | effect.cond_neg | effect.add | effect.delete
    return mask


def _conditional_beliefs(b: Builder, part: _Part, action: GroundAction,
                         args: tuple[str, ...], observed: int) -> bool:
    """The effects of a task action with conditional effects (B05, :mod:`compile_when`):
    the robot's on the world, and every belief effect as prioritised conditional effects
    (inferred over watched over predicted); ``False`` when her model's action can never
    apply."""
    world: list[tuple[Condition, Ref, bool]] = []
    for effect in action.conditional:
        cond = (frozenset(("w", i) for i in bits(effect.cond_pos)),
                frozenset(("w", i) for i in bits(effect.cond_neg)))
        world += [(cond, ("w", i), True) for i in bits(effect.add)]
        world += [(cond, ("w", i), False) for i in bits(effect.delete & ~effect.add)]
    empty: Condition = (frozenset(), frozenset())
    # the robot's sources of each world fact: (condition, adds?)
    sources: dict[int, list[tuple[Condition, bool]]] = {}
    for i in bits(action.add):
        sources.setdefault(i, []).append((empty, True))
    for i in bits(action.delete & ~action.add):
        sources.setdefault(i, []).append((empty, False))
    for cond, (_, i), adds in world:
        sources.setdefault(i, []).append((cond, adds))
    items: list[Item] = []
    # 1. watched: an observable fact the step asserts takes its value after the step
    for i, found in sorted(sources.items()):
        if observed >> i & 1:
            items += [Item(("b", i), True, c) for c, adds in found if adds]
            items += [Item(("b", i), False, c) for c, adds in found if not adds]
    # 2. inferred conditions of watched fired conditional effects (false over true)
    if b.problem.infer_conditions:
        for value in (False, True):
            for effect in action.conditional:
                if not (effect.add | effect.delete) & observed:
                    continue
                cond = (frozenset(("w", i) for i in bits(effect.cond_pos)),
                        frozenset(("w", i) for i in bits(effect.cond_neg)))
                for i in bits(effect.cond_pos if value else effect.cond_neg):
                    found = sources.get(i, [])
                    if any(not c[0] and not c[1] for c, _ in found):
                        continue  # the step always asserts it: never inferred
                    items.append(Item(("b", i), value, (cond[0], cond[1] | {("u", i)}),
                                      tuple(c for c, _ in found)))
    # 3. her model's prediction: adds over deletes, her conditional effects on beliefs
    mine: list[tuple[Condition, Ref, bool]] = []
    mine += [(empty, ref, True) for ref in sorted(part.add)]
    mine += [((frozenset({("mu", c)}), frozenset()), ref, adds)
             for c, ref, adds in sorted(part.when)]
    mine += [(empty, ref, False) for ref in sorted(part.delete)]
    for when in b.whens.get(action.schema, ()):
        params = b.parameters_of(action.schema)
        pos: set[Ref] = set()
        neg: set[Ref] = set()
        possible = True
        for atoms, positive in ((when.pos, True), (when.neg, False)):
            for atom in atoms:
                code, index = b.atom_slot(bind(atom, params, args))
                if code in ("true", "false"):
                    possible = possible and (code == "true") == positive
                else:
                    (pos if positive else neg).add(("b" if code == "bit" else "s", index))
        if not possible or pos & neg:
            continue
        for atoms, adds in ((when.add, True), (when.delete, False)):
            for atom in atoms:
                code, index = b.atom_slot(bind(atom, params, args))
                if code in ("bit", "static"):
                    mine.append(((frozenset(pos), frozenset(neg)),
                                 ("b" if code == "bit" else "s", index), adds))
    mine.sort(key=lambda m: not m[2])  # an add wins over a delete
    items += [Item(target, value, cond) for cond, target, value in mine]
    part.add, part.delete, part.when = set(), set(), []
    part.conditional = world + prioritised(items)
    return True


def _problem_split(b: Builder) -> list[tuple[Feature, int | None]]:
    """The init and goal features of either model with their toggling candidates."""
    kinds = (_K.INIT, _K.GOAL, _K.NEGATIVE_GOAL)
    human = {f for f in b.space.human_features if f.kind in kinds}
    robot = {f for f in b.space.robot_features if f.kind in kinds}
    out: list[tuple[Feature, int | None]] = []
    for feature in sorted(human | robot):
        if feature in human and feature in robot:
            out.append((feature, None))
        else:
            out.append((feature, b.candidate_of[(feature.kind, feature)]))
    return out


def _believed_initially(b: Builder, candidate: int) -> bool:
    """Does the person's own model contain the candidate's feature?"""
    return b.problem.differences[candidate].op == "remove"


class _FactNames:
    """Unique PDDL names: lower-case letters, digits, ``-`` and ``_``."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def make(self, prefix: str, text: str) -> str:
        cleaned = "".join(ch if ch.isalnum() else "_" for ch in text.lower()).strip("_")
        while "__" in cleaned:
            cleaned = cleaned.replace("__", "_")
        base = f"{prefix}_{cleaned}" if cleaned else prefix
        name, number = base, 1
        while name in self.used:
            number += 1
            name = f"{base}_{number}"
        self.used.add(name)
        return name
