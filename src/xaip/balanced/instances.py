"""Problems for balanced planning: the book's USAR instance and small random ones.

Why here and not in tests: the CLI runs the bundled USAR instance without files, the
registry uses it as its example, and the tests and benchmarks of both solvers (model-space
search and MEGA*) draw the same random instances from one generator.

The random instances are USAR-like road maps: waypoints joined by one-way passages that
are clear or blocked by rubble (clearing costs more than a move). The person's model
differs in a few initial facts (passages she thinks clear or blocked) and, sometimes, in
the cost of clearing, whether clearing opens the passage, or whether a move needs a clear
passage, so the candidate
explanations mix problem and domain features.
"""

from __future__ import annotations

import random
from pathlib import Path

from xaip.balanced.objectives import BalancedProblem, Objective, Weights, balanced_problem
from xaip.planning.pddl import parse_domain, parse_problem, read_domain, read_problem
from xaip.planning.pddl.model import Domain, Problem

USAR = Path(__file__).resolve().parent.parent / "domains" / "balanced"
#: The book's price of one explanation item in the USAR example (ch. 7).
USAR_COMMUNICATION_COST = 50.0


def usar_files() -> dict[str, Path]:
    """The bundled instance's files: robot, human, problem, human_problem, costs."""
    return {"robot": USAR / "robot.pddl", "human": USAR / "human.pddl",
            "problem": USAR / "problem.pddl", "human_problem": USAR / "human-problem.pddl",
            "costs": USAR / "costs.json"}


def usar_problem(objective: Objective | str = Objective.BALANCED,
                 communication_cost: float = USAR_COMMUNICATION_COST,
                 weights: Weights | None = None, **options: object) -> BalancedProblem:
    """The recreated USAR instance of book ch. 7 (book-spec §6.3), every item priced at
    ``communication_cost``."""
    files = usar_files()
    return balanced_problem(
        read_domain(files["robot"]), read_problem(files["problem"]),
        read_domain(files["human"]), read_problem(files["human_problem"]),
        objective=objective, weights=weights, default_cost=communication_cost,
        **options)  # type: ignore[arg-type]


_DOMAIN = """
(define (domain roads) (:requirements :strips :action-costs)
  (:predicates (at ?w) (clear ?a ?b) (rubble ?a ?b))
  (:functions (total-cost) - number)
  (:action move :parameters (?a ?b)
    :precondition (and (at ?a) {needs})
    :effect (and (at ?b) (not (at ?a)) (increase (total-cost) 1)))
  (:action clear_passage :parameters (?a ?b)
    :precondition (and (at ?a) (rubble ?a ?b))
    :effect (and {opens} (not (rubble ?a ?b)) (increase (total-cost) {clearing}))))
"""


def _problem_text(name: str, count: int, clear: set[tuple[int, int]],
                  rubble: set[tuple[int, int]]) -> str:
    facts = " ".join(f"(clear w{a} w{b})" for a, b in sorted(clear))
    facts += " " + " ".join(f"(rubble w{a} w{b})" for a, b in sorted(rubble))
    objects = " ".join(f"w{i}" for i in range(count))
    return (f"(define (problem {name}) (:domain roads) (:objects {objects})\n"
            f"  (:init (at w0) {facts} (= (total-cost) 0))\n"
            f"  (:goal (at w{count - 1})) (:metric minimize (total-cost)))")


def random_instance(seed: int, waypoints: int = 6, flips: int = 3,
                    clearing_opens: bool | None = None, rubble: float = 0.25
                    ) -> tuple[Domain, Problem, Domain, Problem]:
    """A random road map (robot model, robot problem, human model, human problem) whose
    robot model has a plan; ``flips`` initial passages differ between the models, a
    passage has rubble with probability ``rubble``, and ``clearing_opens`` fixes whether
    the person knows that clearing opens a passage (``None``: random)."""
    rng = random.Random(seed)
    for _ in range(1000):
        # passages join nearby waypoints, so routes take several steps
        pairs = [(a, b) for a in range(waypoints) for b in range(waypoints)
                 if a != b and -1 <= b - a <= 2]
        edges = [e for e in pairs if rng.random() < 0.6]
        clear = {e for e in edges if rng.random() >= rubble}
        blocked = set(edges) - clear
        robot_problem = _problem_text("robot", waypoints, clear, blocked)
        human_clear = set(clear)
        for edge in rng.sample(pairs, flips):
            human_clear ^= {edge}
        clearing = 2
        human_clearing = rng.choice((1, 2, 2, 3))
        needs_clear = "(clear ?a ?b)"
        human_needs = needs_clear if rng.random() < 0.85 else ""
        opens = "(clear ?a ?b)"
        knows = rng.random() < 0.7 if clearing_opens is None else clearing_opens
        human_opens = opens if knows else ""
        robot = parse_domain(_DOMAIN.format(needs=needs_clear, clearing=clearing,
                                            opens=opens))
        human = parse_domain(_DOMAIN.format(needs=human_needs, clearing=human_clearing,
                                            opens=human_opens))
        if _reachable(waypoints, clear | blocked):
            return (robot, parse_problem(robot_problem), human,
                    parse_problem(_problem_text("human", waypoints, human_clear,
                                                blocked)))
    raise RuntimeError("no solvable random instance")  # pragma: no cover


def _reachable(count: int, edges: set[tuple[int, int]]) -> bool:
    seen, todo = {0}, [0]
    while todo:
        here = todo.pop()
        for a, b in edges:
            if a == here and b not in seen:
                seen.add(b)
                todo.append(b)
    return count - 1 in seen
