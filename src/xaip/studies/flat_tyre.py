"""A small probabilistic road trip (written for xaip, MIT): drive from the first place to
the last; every drive may puncture the tyre, and only places with a spare wheel let the
car go on after a puncture.

Why its own generator: the TLdR study needs probabilistic tasks of growing size that ship
with xaip, so its reduced form runs in CI without the IPPC files. Places lie on a road
that is a chain plus random shortcuts (seeded); spares lie at random places, so some
routes risk a dead end, which is what gives a policy summary its choices.
"""

from __future__ import annotations

import random

DOMAIN = """(define (domain flat-tyre)
  (:requirements :strips :typing :probabilistic-effects)
  (:types place)
  (:predicates
    (car-at ?p - place)
    (road ?from ?to - place)
    (spare-at ?p - place)
    (tyre-ok)
    (carrying-spare))

  (:action drive
    :parameters (?from ?to - place)
    :precondition (and (car-at ?from) (road ?from ?to) (tyre-ok))
    :effect (and (car-at ?to) (not (car-at ?from))
                 (probabilistic 1/3 (not (tyre-ok)))))

  (:action load-spare
    :parameters (?p - place)
    :precondition (and (car-at ?p) (spare-at ?p))
    :effect (and (carrying-spare) (not (spare-at ?p))))

  (:action fit-spare
    :parameters ()
    :precondition (carrying-spare)
    :effect (and (tyre-ok) (not (carrying-spare)))))
"""


def flat_tyre(n_places: int, seed: int = 0) -> tuple[str, str]:
    """``(domain_text, problem_text)`` of a trip over ``n_places`` places (2 to 200)."""
    if not 2 <= n_places <= 200:
        raise ValueError(f"n_places must be from 2 to 200, not {n_places}")
    rng = random.Random(seed)
    places = [f"p{i}" for i in range(1, n_places + 1)]
    roads = {(places[i], places[i + 1]) for i in range(n_places - 1)}
    for _ in range(n_places // 2):
        a, b = sorted(rng.sample(range(n_places), 2))
        if b > a + 1:
            roads.add((places[a], places[b]))
    spares = sorted(rng.sample(places, max(1, n_places // 3)), key=places.index)
    init = ["(car-at p1)", "(tyre-ok)"]
    init += [f"(road {a} {b})" for a, b in sorted(roads, key=lambda r: (
        places.index(r[0]), places.index(r[1])))]
    init += [f"(road {b} {a})" for a, b in sorted(roads, key=lambda r: (
        places.index(r[0]), places.index(r[1])))]
    init += [f"(spare-at {p})" for p in spares]
    problem = (f"(define (problem flat-tyre-{n_places}-{seed})\n"
               f"  (:domain flat-tyre)\n"
               f"  (:objects {' '.join(places)} - place)\n"
               f"  (:init\n    " + "\n    ".join(init) + ")\n"
               f"  (:goal (car-at {places[-1]})))\n")
    return DOMAIN, problem
