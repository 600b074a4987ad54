"""Generators of classic benchmark problems (blocksworld, gripper, logistics) as PDDL text.

Why generate rather than ship files: tests, benchmarks and tutorials need instances of a
chosen size, reproducibly, and the IPC files are not ours to relicense. The domains below
are written from the published IPC semantics (blocksworld with the four operators of
IPC-2000, gripper of IPC-1998, typed logistics of IPC-2000); the instance generators are
our own. Every generator is a pure function of its arguments: the same seed gives the
same text on every platform (only integer draws of :class:`random.Random` are used).

The output is PDDL text, the common hand-off format: it can be read by our own reader or
given to any external planner unchanged.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from math import comb, factorial

BLOCKSWORLD_DOMAIN = """\
; blocksworld with four operators (IPC-2000 semantics), written for xaip, MIT
(define (domain blocksworld)
  (:requirements :strips :typing)
  (:types block)
  (:predicates (on ?x - block ?y - block) (ontable ?x - block) (clear ?x - block)
               (handempty) (holding ?x - block))
  (:action pick-up
    :parameters (?x - block)
    :precondition (and (clear ?x) (ontable ?x) (handempty))
    :effect (and (not (ontable ?x)) (not (clear ?x)) (not (handempty)) (holding ?x)))
  (:action put-down
    :parameters (?x - block)
    :precondition (holding ?x)
    :effect (and (not (holding ?x)) (clear ?x) (handempty) (ontable ?x)))
  (:action stack
    :parameters (?x - block ?y - block)
    :precondition (and (holding ?x) (clear ?y))
    :effect (and (not (holding ?x)) (not (clear ?y)) (clear ?x) (handempty) (on ?x ?y)))
  (:action unstack
    :parameters (?x - block ?y - block)
    :precondition (and (on ?x ?y) (clear ?x) (handempty))
    :effect (and (holding ?x) (clear ?y) (not (clear ?x)) (not (handempty)) (not (on ?x ?y)))))
"""

GRIPPER_DOMAIN = """\
; gripper (IPC-1998 semantics, typed), written for xaip, MIT
(define (domain gripper)
  (:requirements :strips :typing)
  (:types room ball gripper)
  (:predicates (at-robby ?r - room) (at ?b - ball ?r - room) (free ?g - gripper)
               (carry ?b - ball ?g - gripper))
  (:action move
    :parameters (?from - room ?to - room)
    :precondition (at-robby ?from)
    :effect (and (at-robby ?to) (not (at-robby ?from))))
  (:action pick
    :parameters (?b - ball ?r - room ?g - gripper)
    :precondition (and (at ?b ?r) (at-robby ?r) (free ?g))
    :effect (and (carry ?b ?g) (not (at ?b ?r)) (not (free ?g))))
  (:action drop
    :parameters (?b - ball ?r - room ?g - gripper)
    :precondition (and (carry ?b ?g) (at-robby ?r))
    :effect (and (at ?b ?r) (free ?g) (not (carry ?b ?g)))))
"""

LOGISTICS_DOMAIN = """\
; logistics (IPC-2000 semantics, typed), written for xaip, MIT
(define (domain logistics)
  (:requirements :strips :typing)
  (:types city place physobj - object
          package vehicle - physobj
          truck airplane - vehicle
          airport location - place)
  (:predicates (in-city ?loc - place ?city - city)
               (at ?obj - physobj ?loc - place)
               (in ?pkg - package ?veh - vehicle))
  (:action load-truck
    :parameters (?pkg - package ?truck - truck ?loc - place)
    :precondition (and (at ?truck ?loc) (at ?pkg ?loc))
    :effect (and (not (at ?pkg ?loc)) (in ?pkg ?truck)))
  (:action load-airplane
    :parameters (?pkg - package ?airplane - airplane ?loc - place)
    :precondition (and (at ?pkg ?loc) (at ?airplane ?loc))
    :effect (and (not (at ?pkg ?loc)) (in ?pkg ?airplane)))
  (:action unload-truck
    :parameters (?pkg - package ?truck - truck ?loc - place)
    :precondition (and (at ?truck ?loc) (in ?pkg ?truck))
    :effect (and (not (in ?pkg ?truck)) (at ?pkg ?loc)))
  (:action unload-airplane
    :parameters (?pkg - package ?airplane - airplane ?loc - place)
    :precondition (and (in ?pkg ?airplane) (at ?airplane ?loc))
    :effect (and (not (in ?pkg ?airplane)) (at ?pkg ?loc)))
  (:action drive-truck
    :parameters (?truck - truck ?loc-from - place ?loc-to - place ?city - city)
    :precondition (and (at ?truck ?loc-from) (in-city ?loc-from ?city)
                       (in-city ?loc-to ?city))
    :effect (and (not (at ?truck ?loc-from)) (at ?truck ?loc-to)))
  (:action fly-airplane
    :parameters (?airplane - airplane ?loc-from - airport ?loc-to - airport)
    :precondition (at ?airplane ?loc-from)
    :effect (and (not (at ?airplane ?loc-from)) (at ?airplane ?loc-to))))
"""

Atom = tuple[str, ...]


# --------------------------------------------------------------------------- formatting


def _atom(atom: Atom) -> str:
    return "(" + " ".join(atom) + ")"


def _wrapped(items: Iterable[str], indent: str, width: int = 90) -> list[str]:
    """Items joined by spaces into lines of at most ``width`` characters (readable diffs)."""
    lines: list[str] = []
    current = ""
    for item in items:
        if current and len(indent) + len(current) + 1 + len(item) > width:
            lines.append(indent + current)
            current = item
        else:
            current = f"{current} {item}" if current else item
    if current:
        lines.append(indent + current)
    return lines


def _problem_text(
    header: str,
    name: str,
    domain: str,
    objects: Sequence[tuple[Sequence[str], str]],
    init: Sequence[Atom],
    goal: Sequence[Atom],
) -> str:
    """A problem file in the conventional layout, one section per block of lines."""
    lines = [f"; {header}", f"(define (problem {name})", f"  (:domain {domain})", "  (:objects"]
    for names, type_name in objects:
        lines.extend(_wrapped([*names, "-", type_name], "    "))
    lines[-1] += ")"
    lines.append("  (:init")
    lines.extend(_wrapped((_atom(a) for a in init), "    "))
    lines[-1] += ")"
    lines.append("  (:goal (and")
    lines.extend(_wrapped((_atom(a) for a in goal), "    "))
    lines[-1] += ")))"
    return "\n".join(lines) + "\n"


def _check_int(name: str, value: int, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")


# --------------------------------------------------------------------------- blocksworld


def _lah(n: int, k: int) -> int:
    """Ways to arrange ``n`` labelled blocks into ``k`` (unordered, non-empty) towers."""
    return comb(n - 1, k - 1) * factorial(n) // factorial(k)


def random_towers(blocks: Sequence[str], rng: random.Random) -> list[list[str]]:
    """A blocksworld state drawn uniformly from all states of ``blocks`` (hand empty).

    Why uniform: a naive "shuffle and cut at random" favours some tower shapes, and
    benchmark difficulty then drifts with the generator rather than with the size. Every
    state with ``k`` towers corresponds to exactly ``k!`` pairs (permutation, composition
    of ``n`` into ``k`` parts). So we draw ``k`` with weight ``L(n, k)`` (Lah numbers,
    the number of states with ``k`` towers), then a uniform permutation and a uniform
    composition: each state then has probability ``1 / sum_k L(n, k)``.

    Each tower is listed bottom first; towers are sorted by their bottom block.
    """
    n = len(blocks)
    if n == 0:
        return []
    weights = [_lah(n, k) for k in range(1, n + 1)]
    draw = rng.randrange(sum(weights))
    k = 1
    for k, weight in enumerate(weights, start=1):  # noqa: B007 - k is used after the loop
        if draw < weight:
            break
        draw -= weight
    order = list(blocks)
    rng.shuffle(order)
    cuts = sorted(rng.sample(range(1, n), k - 1))
    bounds = [0, *cuts, n]
    towers = [order[bounds[i] : bounds[i + 1]] for i in range(k)]
    return sorted(towers, key=lambda tower: tower[0])


def _tower_atoms(towers: Sequence[Sequence[str]], with_clear: bool) -> list[Atom]:
    atoms: list[Atom] = []
    for tower in towers:
        atoms.append(("ontable", tower[0]))
        atoms.extend(("on", upper, lower) for lower, upper in zip(tower, tower[1:], strict=False))
        if with_clear:
            atoms.append(("clear", tower[-1]))
    return atoms


def blocksworld(n_blocks: int, seed: int = 0) -> tuple[str, str]:
    """A random blocksworld problem: ``(domain_text, problem_text)``.

    Blocks ``b1 .. bn``. The initial state and the goal are drawn independently and
    uniformly (see :func:`random_towers`); the goal is redrawn while it equals the
    initial state, so that instances with two or more blocks are never trivial. The goal
    names the complete goal configuration: every ``on`` fact and the ``ontable`` fact of
    each tower's bottom block (IPC goals often list only the ``on`` facts; ours also fix
    which blocks stand on the table, so a goal is never empty).
    """
    _check_int("n_blocks", n_blocks, 1)
    rng = random.Random(seed)
    blocks = [f"b{i}" for i in range(1, n_blocks + 1)]
    init = random_towers(blocks, rng)
    goal = random_towers(blocks, rng)
    while n_blocks > 1 and goal == init:
        goal = random_towers(blocks, rng)
    problem = _problem_text(
        f"generated by xaip.domains.generators.blocksworld(n_blocks={n_blocks}, seed={seed})",
        f"bw-{n_blocks}-s{seed}",
        "blocksworld",
        [(blocks, "block")],
        [("handempty",), *_tower_atoms(init, with_clear=True)],
        _tower_atoms(goal, with_clear=False),
    )
    return BLOCKSWORLD_DOMAIN, problem


# --------------------------------------------------------------------------- gripper


def gripper(n_balls: int) -> tuple[str, str]:
    """The gripper problem with ``n_balls`` balls: ``(domain_text, problem_text)``.

    As in IPC-1998: the robot with two free grippers (``left``, ``right``) and all balls
    start in ``rooma``; every ball must end in ``roomb``. There is no randomness, so the
    instance is determined by its size, and its optimal plan length is known in closed
    form (:func:`gripper_optimal_length`), which makes gripper a yardstick for optimal
    search.
    """
    _check_int("n_balls", n_balls, 1)
    balls = [f"ball{i}" for i in range(1, n_balls + 1)]
    problem = _problem_text(
        f"generated by xaip.domains.generators.gripper(n_balls={n_balls})",
        f"gripper-{n_balls}",
        "gripper",
        [(["rooma", "roomb"], "room"), (balls, "ball"), (["left", "right"], "gripper")],
        [
            ("at-robby", "rooma"),
            ("free", "left"),
            ("free", "right"),
            *(("at", ball, "rooma") for ball in balls),
        ],
        [("at", ball, "roomb") for ball in balls],
    )
    return GRIPPER_DOMAIN, problem


def gripper_optimal_length(n_balls: int) -> int:
    """The optimal plan length of :func:`gripper` ``(n_balls)`` (for tests and benchmarks).

    Each full trip moves two balls with 2 picks, a move, 2 drops and a move back; the
    last trip does not return. With ``t = ceil(n / 2)`` trips that is
    ``2n`` picks and drops plus ``2t - 1`` moves.
    """
    _check_int("n_balls", n_balls, 1)
    trips = (n_balls + 1) // 2
    return 2 * n_balls + 2 * trips - 1


# --------------------------------------------------------------------------- logistics


def logistics(
    n_cities: int,
    n_packages: int,
    seed: int = 0,
    locations_per_city: int = 2,
    n_trucks: int | None = None,
    n_airplanes: int = 1,
) -> tuple[str, str]:
    """A random logistics problem: ``(domain_text, problem_text)``.

    Each city ``cityI`` has one airport ``aptI`` and ``locations_per_city - 1`` other
    locations ``locI-J``. Truck ``truckK`` belongs to city ``((K - 1) mod n_cities) + 1``
    and starts at a random place of that city; airplanes start at random airports;
    each package starts at a random place and must reach a different random place.

    Solvability is guaranteed by the argument checks: with places other than airports,
    every city needs a truck (``n_trucks >= n_cities``, the default is one per city), and
    with several cities there must be an airplane (``n_airplanes >= 1``). Arguments that
    would allow unsolvable instances raise :class:`ValueError`.
    """
    trucks_count = n_cities if n_trucks is None else n_trucks
    _check_int("n_cities", n_cities, 1)
    _check_int("n_packages", n_packages, 1)
    _check_int("locations_per_city", locations_per_city, 1)
    _check_int("n_trucks", trucks_count, 0)
    _check_int("n_airplanes", n_airplanes, 0)
    if locations_per_city > 1 and trucks_count < n_cities:
        raise ValueError(
            f"n_trucks={trucks_count} < n_cities={n_cities}: a city without a truck cannot "
            "serve its non-airport locations (the instance could be unsolvable)"
        )
    if n_cities > 1 and n_airplanes < 1:
        raise ValueError("several cities need at least one airplane (n_airplanes >= 1)")

    rng = random.Random(seed)
    cities = [f"city{c}" for c in range(1, n_cities + 1)]
    airports = [f"apt{c}" for c in range(1, n_cities + 1)]
    others = [[f"loc{c}-{j}" for j in range(1, locations_per_city)] for c in range(1, n_cities + 1)]
    places_of = [[airports[c], *others[c]] for c in range(n_cities)]
    all_places = [place for places in places_of for place in places]
    trucks = [f"truck{k}" for k in range(1, trucks_count + 1)]
    airplanes = [f"plane{k}" for k in range(1, n_airplanes + 1)]
    packages = [f"pkg{k}" for k in range(1, n_packages + 1)]

    init: list[Atom] = []
    for c, city in enumerate(cities):
        init.extend(("in-city", place, city) for place in places_of[c])
    for k, truck in enumerate(trucks):
        init.append(("at", truck, rng.choice(places_of[k % n_cities])))
    for airplane in airplanes:
        init.append(("at", airplane, rng.choice(airports)))
    goal: list[Atom] = []
    for package in packages:
        start = rng.choice(all_places)
        init.append(("at", package, start))
        targets = [place for place in all_places if place != start] or [start]
        goal.append(("at", package, rng.choice(targets)))

    objects: list[tuple[Sequence[str], str]] = [
        (cities, "city"),
        (airports, "airport"),
    ]
    locations = [place for group in others for place in group]
    if locations:
        objects.append((locations, "location"))
    if trucks:
        objects.append((trucks, "truck"))
    if airplanes:
        objects.append((airplanes, "airplane"))
    objects.append((packages, "package"))
    args = (
        f"n_cities={n_cities}, n_packages={n_packages}, seed={seed}, "
        f"locations_per_city={locations_per_city}, n_trucks={trucks_count}, "
        f"n_airplanes={n_airplanes}"
    )
    problem = _problem_text(
        f"generated by xaip.domains.generators.logistics({args})",
        f"logistics-{n_cities}-{n_packages}-s{seed}",
        "logistics",
        objects,
        init,
        goal,
    )
    return LOGISTICS_DOMAIN, problem
