"""Differential test of :func:`xaip.multiuser.explain_to_users` against brute force.

Each seed draws, as plain Python data, a tiny propositional robot model (3-4 nullary
predicates, 3-4 parameterless actions with preconditions -- negative ones in a quarter of the
instances -- adds and deletes, unit costs, or declared costs 1-3 under ``(:metric minimize
(total-cost))`` in a third of them), 2-3 users whose models differ from the robot's by 1-4
added or removed preconditions, effects, initial or goal facts, and a random privacy map
(deny and allow lists, private rules; every rule kind); under the metric, a user may also
misjudge one action's cost (a cost edit; users who disagree on a cost have no merged model,
so the shared answer must be "unavailable"). The models are written as PDDL text
for xaip; the oracle reads the *data* and shares no code with xaip.

The oracle, from the definitions (book §5, §6.2 Def. 30, §10.2.2 and ``docs/multiuser.md``):
a plan is valid when every step's preconditions hold (negative ones: the atom is false) and
the goal holds at the end, states progress as ``(s - del) | add``; optimal when its cost
equals the cheapest cost found by Dijkstra over the model's states. For each user it
enumerates every subset of the differences between the user's and the robot's feature sets
and finds the smallest subset the map allows after which the plan is valid and optimal, or
else the fewest withheld edits any explaining subset needs. For the group it builds the
merged model (known = what every user holds, possible = what some but not all hold), the
labelled candidate edits, and enumerates every subset of them and every completion.

Compared: the answer is verified; each user's status and explanation size (or the number of
needed withheld edits) equal the oracle's, the reported set explains by the oracle, uses
only allowed edits; the shared status and size equal the oracle's and its set is conformant
by the oracle; each user's filtered view is the edits that are news to them.
"""

from __future__ import annotations

import heapq
import itertools
import random
from dataclasses import dataclass, field

from tests.differential.certificates import counting_rejections

CI_INSTANCES = 200

# A feature: (kind, action, predicate); problem kinds have action "".
Feat = tuple[str, str, str]
_ACTION_KINDS = ("precondition", "negative-precondition", "add-effect", "delete-effect")


@dataclass
class Model:
    features: set[Feat]
    costs: dict[str, int]

    def copy(self) -> Model:
        return Model(set(self.features), dict(self.costs))


@dataclass
class Instance:
    preds: tuple[str, ...]
    actions: tuple[str, ...]
    negative: bool
    metric: bool
    robot: Model
    users: dict[str, Model]
    privacy: dict[str, object] = field(default_factory=dict)


# --------------------------------------------------------------------------- generation


def _draw(rng: random.Random) -> Instance:
    preds = tuple(f"p{i}" for i in range(rng.randint(3, 4)))
    actions = tuple(f"a{i}" for i in range(rng.randint(3, 4)))
    negative = rng.random() < 0.25
    metric = rng.random() < 0.33
    feats: set[Feat] = set()
    for a in actions:
        for p in rng.sample(preds, rng.randint(0, 2)):
            feats.add(("precondition", a, p))
        if negative and rng.random() < 0.5:
            p = rng.choice(preds)
            if ("precondition", a, p) not in feats:
                feats.add(("negative-precondition", a, p))
        adds = rng.sample(preds, rng.randint(1, 2))
        feats.update(("add-effect", a, p) for p in adds)
        for p in rng.sample([q for q in preds if q not in adds], rng.randint(0, 1)):
            feats.add(("delete-effect", a, p))
    feats.update(("init", "", p) for p in rng.sample(preds, rng.randint(0, 2)))
    feats.update(("goal", "", p) for p in rng.sample(preds, rng.randint(1, 2)))
    costs = {a: rng.randint(1, 3) if metric else 1 for a in actions}
    robot = Model(feats, costs)
    users: dict[str, Model] = {}
    for name in ("ann", "bob", "cem")[:rng.randint(2, 3)]:
        model = robot.copy()
        for _ in range(rng.randint(1, 4)):
            model.features ^= {_random_feature(rng, preds, actions, negative)}
        if not any(f[0] == "goal" for f in model.features):
            model.features.add(("goal", "", rng.choice(preds)))
        if metric and rng.random() < 0.3:  # a user who misjudges what an action costs
            action = rng.choice(actions)
            model.costs[action] = rng.choice([c for c in (1, 2, 3) if c != costs[action]])
        users[name] = model
    inst = Instance(preds, actions, negative, metric, robot, users)
    inst.privacy = _privacy(rng, inst)
    return inst


def _random_feature(rng: random.Random, preds: tuple[str, ...], actions: tuple[str, ...],
                    negative: bool) -> Feat:
    kinds = ["precondition", "add-effect", "delete-effect", "init", "goal"]
    if negative:
        kinds.append("negative-precondition")
    kind = rng.choice(kinds)
    action = "" if kind in ("init", "goal") else rng.choice(actions)
    return (kind, action, rng.choice(preds))


def _rule(rng: random.Random, inst: Instance) -> str:
    roll = rng.random()
    if roll < 0.35:
        return f"predicate:{rng.choice(inst.preds)}"
    if roll < 0.65:
        return f"action:{rng.choice(inst.actions)}"
    if roll < 0.95:
        kind, action, pred = _random_feature(rng, inst.preds, inst.actions, inst.negative)
        return f"feature:{kind}{' ' + action if action else ''} ({pred})"
    return "*"


def _privacy(rng: random.Random, inst: Instance) -> dict[str, object]:
    users: dict[str, object] = {}
    private: dict[str, list[str]] = {}
    for name in inst.users:
        entry: dict[str, list[str]] = {}
        if rng.random() < 0.5:
            entry["deny"] = [_rule(rng, inst) for _ in range(rng.randint(1, 2))]
        if rng.random() < 0.2:
            entry["allow"] = [_rule(rng, inst) for _ in range(rng.randint(1, 3))]
        if entry:
            users[name] = entry
        if rng.random() < 0.3:
            rule = _rule(rng, inst)
            if rule != "*":
                private[name] = [rule]
    out: dict[str, object] = {}
    if users:
        out["users"] = users
    if private:
        out["private"] = private
    return out


def generate(seed: int) -> Instance:
    """The instance of ``seed``: redrawn until the robot's task has a plan."""
    rng = random.Random(seed)
    while True:
        inst = _draw(rng)
        if _cheapest(inst.robot, inst.actions) is not None:
            return inst


# --------------------------------------------------------------------------- PDDL text


def _domain(inst: Instance, model: Model) -> str:
    reqs = ":strips" + (" :negative-preconditions" if inst.negative else "") + \
        (" :action-costs" if inst.metric else "")
    out = [f"(define (domain d) (:requirements {reqs})",
           "(:predicates " + " ".join(f"({p})" for p in inst.preds) + ")"]
    if inst.metric:
        out.append("(:functions (total-cost) - number)")
    for a in inst.actions:
        pre = [f"({p})" for k, b, p in sorted(model.features) if b == a and k == "precondition"]
        pre += [f"(not ({p}))" for k, b, p in sorted(model.features)
                if b == a and k == "negative-precondition"]
        eff = [f"({p})" for k, b, p in sorted(model.features) if b == a and k == "add-effect"]
        eff += [f"(not ({p}))" for k, b, p in sorted(model.features)
                if b == a and k == "delete-effect"]
        if inst.metric:
            eff.append(f"(increase (total-cost) {model.costs[a]})")
        out.append(f"(:action {a} :parameters () :precondition (and {' '.join(pre)}) "
                   f":effect (and {' '.join(eff)}))")
    return "\n".join(out) + ")"


def _problem(inst: Instance, model: Model) -> str:
    init = " ".join(f"({p})" for k, _, p in sorted(model.features) if k == "init")
    if inst.metric:
        init += " (= (total-cost) 0)"
    goal = " ".join(f"({p})" for k, _, p in sorted(model.features) if k == "goal")
    metric = " (:metric minimize (total-cost))" if inst.metric else ""
    return f"(define (problem q) (:domain d) (:init {init}) (:goal (and {goal})){metric})"


# --------------------------------------------------------------------------- the oracle


def _step(model: Model, state: frozenset[str], action: str) -> frozenset[str] | None:
    f = model.features
    for kind, a, p in f:
        if a != action:
            continue
        if kind == "precondition" and p not in state:
            return None
        if kind == "negative-precondition" and p in state:
            return None
    dels = {p for k, a, p in f if a == action and k == "delete-effect"}
    adds = {p for k, a, p in f if a == action and k == "add-effect"}
    return frozenset((state - dels) | adds)


def _start(model: Model) -> frozenset[str]:
    return frozenset(p for k, _, p in model.features if k == "init")


def _goal(model: Model) -> set[str]:
    return {p for k, _, p in model.features if k == "goal"}


def _cheapest(model: Model, actions: tuple[str, ...]) -> int | None:
    """Dijkstra over the model's states: the cheapest plan's cost (None: no plan)."""
    goal = _goal(model)
    start = _start(model)
    best = {start: 0}
    queue = [(0, sorted(start))]
    while queue:
        cost, listed = heapq.heappop(queue)
        state = frozenset(listed)
        if cost > best.get(state, 1 << 30):
            continue
        if goal <= state:
            return cost
        for a in actions:
            nxt = _step(model, state, a)
            if nxt is not None and cost + model.costs[a] < best.get(nxt, 1 << 30):
                best[nxt] = cost + model.costs[a]
                heapq.heappush(queue, (best[nxt], sorted(nxt)))
    return None


def _plan_cost(model: Model, plan: tuple[str, ...]) -> int | None:
    state = _start(model)
    for a in plan:
        nxt = _step(model, state, a)
        if nxt is None:
            return None
        state = nxt
    return sum(model.costs[a] for a in plan) if _goal(model) <= state else None


def _explains(model: Model, plan: tuple[str, ...], actions: tuple[str, ...]) -> bool:
    cost = _plan_cost(model, plan)
    return cost is not None and cost == _cheapest(model, actions)


def _edited(model: Model, edits: tuple[tuple[str, Feat], ...]) -> Model:
    out = model.copy()
    for op, f in edits:
        if f[0] == "cost":  # a changed cost is one edit that sets the robot's value
            out.costs[f[1]] = int(f[2])
        elif op == "add":
            out.features.add(f)
        else:
            out.features.discard(f)
    return out


def _matches(rule: str, f: Feat) -> bool:
    if rule == "*":
        return True
    head, _, rest = rule.partition(":")
    if head == "predicate":
        return f[2] == rest
    if head == "action":
        return f[1] == rest
    words = rest.replace("(", " ").replace(")", " ").split()
    kind, action, pred = (words[0], "", words[1]) if len(words) == 2 else tuple(words)
    return (kind, action, pred) == f


def _may_hear(privacy: dict[str, object], user: str, f: Feat) -> bool:
    private = privacy.get("private", {})
    assert isinstance(private, dict)
    for owner, rules in private.items():
        if owner != user and any(_matches(r, f) for r in rules):
            return False
    entry = privacy.get("users", {})
    assert isinstance(entry, dict)
    own = entry.get(user, {})
    if any(_matches(r, f) for r in own.get("deny", [])):
        return False
    return "allow" not in own or any(_matches(r, f) for r in own["allow"])


def _diff(user: Model, robot: Model) -> list[tuple[str, Feat]]:
    costs = [("add", ("cost", a, str(c))) for a, c in robot.costs.items()
             if user.costs[a] != c]
    return sorted([("add", f) for f in robot.features - user.features]
                  + [("remove", f) for f in user.features - robot.features] + costs)


def _best(edits: list[tuple[str, Feat]], allowed: list[bool], works) -> tuple[int, int] | None:  # type: ignore[no-untyped-def]
    """(withheld edits, size) of the best explaining subset, by enumeration of all of them."""
    best: tuple[int, int] | None = None
    for size in range(len(edits) + 1):
        for subset in itertools.combinations(range(len(edits)), size):
            key = (sum(not allowed[i] for i in subset), size)
            if best is not None and key >= best:
                continue
            if works(tuple(edits[i] for i in subset)):
                best = key
    return best


def _feat_of(edit: dict[str, object]) -> tuple[str, Feat]:
    feature = edit["feature"]
    assert isinstance(feature, dict)
    if feature["kind"] == "cost":
        return str(edit["op"]), ("cost", str(feature["action"]), str(feature["value"]))
    atom = str(feature["atom"]).strip("()")
    return str(edit["op"]), (str(feature["kind"]), str(feature["action"] or ""), atom)


def _compare_user(inst: Instance, plan: tuple[str, ...], name: str,
                  answer: dict[str, object]) -> str | None:
    user, robot = inst.users[name], inst.robot
    edits = _diff(user, robot)
    allowed = [_may_hear(inst.privacy, name, f) for _, f in edits]

    def works(subset: tuple[tuple[str, Feat], ...]) -> bool:
        return _explains(_edited(user, subset), plan, inst.actions)

    best = _best(edits, allowed, works)
    assert best is not None  # every difference told gives the robot's model
    if answer["differences"] != len(edits) or answer["withheld"] != allowed.count(False):
        return f"{name}: differences/withheld {answer['differences']}/{answer['withheld']}, " \
               f"oracle {len(edits)}/{allowed.count(False)}"
    if best[0] == 0:
        told = tuple(_feat_of(e) for e in answer["edits"])  # type: ignore[attr-defined]
        if answer["status"] != "found" or len(told) != best[1]:
            return f"{name}: {answer['status']} size {len(told)}, oracle found size {best[1]}"
        if not works(told) or any(not _may_hear(inst.privacy, name, f) for _, f in told):
            return f"{name}: the oracle refutes the explanation {told}"
        return None
    full = tuple(_feat_of(e) for e in answer.get("explanation_with_needed", []))  # type: ignore[attr-defined]
    needed = answer.get("needed", [])
    if answer["status"] != "no_explanation" or len(needed) != best[0]:  # type: ignore[arg-type]
        return f"{name}: {answer['status']} with {len(needed)} needed, oracle needs {best[0]}"  # type: ignore[arg-type]
    if not works(full):
        return f"{name}: the set with the needed edits does not explain it (oracle)"
    return None


def _compare_group(inst: Instance, plan: tuple[str, ...], shared: dict[str, object]
                   ) -> str | None:
    names = list(inst.users)
    disputed = [a for a in inst.actions if len({m.costs[a] for m in inst.users.values()}) > 1]
    if disputed:  # a value cannot be a possible feature: no merged model
        return None if shared["status"] == "unavailable" else \
            f"shared: {shared['status']}, but the users disagree on the cost of {disputed[0]}"
    common = dict(inst.users[names[0]].costs)
    held = [inst.users[n].features for n in names]
    known = set.intersection(*held)
    possible = set.union(*held) - known
    robot = inst.robot.features
    labels: dict[tuple[str, Feat], str] = {}
    for f in (robot - known) - possible:
        labels[("add", f)] = "add-known"
    for f in (known - robot) - possible:
        labels[("remove", f)] = "remove-known"
    for f in possible:
        labels[("add", f) if f in robot else ("remove", f)] = \
            "add-annot" if f in robot else "remove-annot"
    for a, c in inst.robot.costs.items():
        if common[a] != c:
            labels[("add", ("cost", a, str(c)))] = "add-known"
    cands = sorted(labels)
    allowed = [all(_may_hear(inst.privacy, n, f) for n in names) for _, f in cands]
    base = Model(set(known), common)

    def works(subset: tuple[tuple[str, Feat], ...]) -> bool:
        settled = {f for _, f in subset}
        updated = _edited(base, tuple(e for e in subset if labels[e] != "remove-annot"))
        open_ = sorted(possible - settled)
        for size in range(len(open_) + 1):
            for realised in itertools.combinations(open_, size):
                model = _edited(updated, tuple(("add", f) for f in realised))
                if not _explains(model, plan, inst.actions):
                    return False
        return True

    best = _best(cands, allowed, works)
    assert best is not None
    if best[0] == 0:
        told = tuple(_feat_of(e) for e in shared["edits"])  # type: ignore[attr-defined]
        if shared["status"] != "found" or len(told) != best[1]:
            return f"shared: {shared['status']} size {len(told)}, oracle found size {best[1]}"
        if not works(told):
            return f"shared: the oracle finds {told} not conformant"
        for n, model in inst.users.items():
            news = sorted(e for e in told if (e[0] == "add") != (e[1] in model.features))
            view = sorted(_feat_of(e) for e in shared["for_user"][n])  # type: ignore[index]
            if view != news:
                return f"shared: {n}'s view {view}, oracle {news}"
        return None
    needed = shared.get("needed", [])
    if shared["status"] != "no_explanation" or len(needed) != best[0]:  # type: ignore[arg-type]
        return f"shared: {shared['status']} with {len(needed)} needed, oracle {best[0]}"  # type: ignore[arg-type]
    full = tuple(_feat_of(e) for e in shared.get("explanation_with_needed", []))  # type: ignore[attr-defined]
    return None if works(full) else "shared: the set with the needed edits is not conformant"


def run(seed: int) -> tuple[Instance, dict[str, object]]:
    from xaip.multiuser import explain_to_users
    from xaip.planning.pddl import parse_domain, parse_problem

    inst = generate(seed)
    robot = (parse_domain(_domain(inst, inst.robot)), parse_problem(_problem(inst, inst.robot)))
    users = [(n, parse_domain(_domain(inst, m)), parse_problem(_problem(inst, m)))
             for n, m in inst.users.items()]
    result = explain_to_users(robot, users, privacy=inst.privacy)
    return inst, result.to_dict()


@counting_rejections
def check(seed: int) -> str | None:
    inst, out = run(seed)
    if not out["verified"]:
        return f"not verified: {out['check']}"
    plan = tuple(str(s["action"]).strip("()") for s in out["plan"])  # type: ignore[attr-defined]
    cost = _plan_cost(inst.robot, plan)
    if cost is None or cost != _cheapest(inst.robot, inst.actions):
        return f"the robot's plan {plan} is not optimal in the robot's model (oracle)"
    for answer in out["users"]:  # type: ignore[attr-defined]
        problem = _compare_user(inst, plan, answer["user"], answer)
        if problem is not None:
            return problem
    return _compare_group(inst, plan, out["shared"])  # type: ignore[arg-type]
