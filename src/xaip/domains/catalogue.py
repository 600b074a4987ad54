"""The bundled examples as a catalogue: what each folder of ``xaip/domains`` is for.

Why a catalogue: the example files ship inside the package (they are package data, so a
wheel has them too), but a new user cannot guess where ``site-packages`` put them or which
command each one feeds. ``xaip examples`` lists this catalogue and ``xaip examples copy NAME
DIR`` copies one example's files into a folder of the user's, where the commands listed
here run as written (``tests/test_examples_command.py`` runs every one of them).

The files of an example are read from the package at call time (every regular file of its
folder that is not Python), so a file added to a folder is listed and copied without an
edit here.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from importlib.abc import Traversable
from typing import Any

from xaip.errors import InputError


@dataclass(frozen=True)
class Example:
    """One bundled example: a folder of files and the commands that use them."""

    name: str
    family: str  # the docs page / explainer family it illustrates
    folder: str  # under xaip/domains
    summary: str  # one line, in plain words
    commands: tuple[str, ...]  # run in a copy of the folder, as written

    def root(self) -> Traversable:
        root = resources.files("xaip") / "domains"
        for part in self.folder.split("/"):
            root = root / part
        return root

    def files(self) -> tuple[str, ...]:
        """The example's file names, sorted (Python modules and caches are not examples)."""
        return tuple(sorted(entry.name for entry in self.root().iterdir()
                            if entry.is_file() and not entry.name.endswith((".py", ".pyc"))))

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "family": self.family, "summary": self.summary,
                "files": list(self.files()), "commands": list(self.commands)}


EXAMPLES: tuple[Example, ...] = (
    Example("blocksworld", "planning", "blocksworld",
            "five blocks to restack: an optimal plan, its validation, the task's landmarks",
            ("xaip plan domain.pddl problem-5.pddl --optimal -o plan.txt",
             "xaip validate domain.pddl problem-5.pddl plan.txt",
             "xaip landmarks domain.pddl problem-5.pddl")),
    Example("fetch", "explanations", "fetch",
            "the book's Fetch robot: why tuck the hand before moving? (model reconciliation)",
            ("xaip explain robot.pddl human.pddl problem.pddl",
             "xaip diff robot.pddl human.pddl")),
    Example("usar", "explanations", "usar",
            "a search-and-rescue robot explaining to a person whose model is uncertain",
            ("xaip explain robot.pddl human.pddl problem.pddl --plan plan.txt "
             "--human-problem human-problem.pddl --annotations annotations.txt "
             "--type conformant",)),
    Example("airport", "summaries", "airport",
            "a stochastic trip to the airport, summarised as ordered subgoals",
            ("xaip summarize domain.pddl problem.pddl",)),
    Example("restaurant", "explicable", "restaurant",
            "the book's restaurant robot: the route its customer expects, and barriers "
            "that make it cheap",
            ("xaip explicable domain.pddl domain.pddl b2.pddl --human-problem b2-human.pddl",
             "xaip design design.json")),
    Example("balanced", "balanced", "balanced",
            "the book's rescue robot choosing its plan and explanation together",
            ("xaip balance robot.pddl human.pddl problem.pddl --human-problem "
             "human-problem.pddl --explanation-cost costs.json",)),
    Example("port", "observers", "observers/port",
            "a port robot shipping a crate so that a supervisor sees early which one",
            ("xaip observe domain.pddl problem.pddl --observations observer.json "
             "--goals goals.json --mode legible-goal --j 1",)),
    Example("medkit", "observers", "observers/medkit",
            "a robot fetching a medical kit along a plan its observer can tell apart",
            ("xaip observe domain.pddl problem.pddl --observations observer.json "
             "--goals goals.json --mode legible-plan --m 2 --d 0.5 --max-cost 8",)),
    Example("truck", "observers", "observers/truck",
            "a truck whose loads tell a friend its goal and hide it from a rival",
            ("xaip observe domain.pddl problem.pddl --observations observers.json "
             "--goals goals.json --mode mixed",)),
    Example("grids", "observers", "observers/grids",
            "grid maps for deceptive paths: reach the goal while looking headed elsewhere",
            ("xaip observe --mode deceptive --grid corridor.txt",)),
    Example("sokoban", "concepts", "sokoban",
            "Sokoban levels with an agent's plan and a user's foil: why not the foil?",
            ("xaip why-not sokoban-switch --level switch-1.txt --plan switch-1.plan.txt "
             "--foil switch-1.foil.txt",
             "xaip why-not sokoban-cells --level cells-1.txt --plan cells-1.plan.txt "
             "--foil cells-1.foil.txt --vocabulary cells.json")),
    Example("frozenlake", "gymnasium", "gymnasium/frozenlake",
            "Gymnasium's FrozenLake with a file of concepts: capabilities, and why not "
            "the user's route (needs xaip[gym])",
            ("xaip check-env frozenlake.json",
             "xaip discover frozenlake.json --quiet",
             "xaip why-not frozenlake.json --plan plan.txt --foil foil.txt")),
    Example("cliffwalking", "gymnasium", "gymnasium/cliffwalking",
            "Gymnasium's CliffWalking: why the agent's longer route, in the user's concepts "
            "(needs xaip[gym])",
            ("xaip why-not cliffwalking.json",)),
    Example("taxi", "gymnasium", "gymnasium/taxi",
            "Gymnasium's Taxi: why not pick the passenger up here? and what the taxi can do "
            "(needs xaip[gym])",
            ("xaip why-not taxi.json", "xaip discover taxi.json --quiet")),
    Example("montezuma", "concepts", "montezuma",
            "Montezuma's Revenge routes and foils: why not the user's route?",
            ("xaip why-not montezuma --plan screen-1.ladder-left.plan.txt "
             "--foil screen-1.ladder-left.foil.txt",)),
    Example("unsolvable", "unsolvable", "unsolvable",
            "a delivery map transcribed without the harbour road: why the task has no plan "
            "and where the person's plan fails",
            ("xaip unsolvable domain.pddl problem.pddl --trace attempt.plan.txt --repair 1",)),
    Example("abstraction", "abstraction", "abstraction",
            "stacking blocks for a person who ignores clear/handempty/holding: the fewest "
            "facts she must track to see why her plans fail, and her level found by queries",
            ("xaip abstract-explain domain.pddl problem.pddl --hide clear handempty holding "
             "--foil lift-a.plan.txt keep-c.plan.txt",
             "xaip abstract-locate domain.pddl problem.pddl --hide clear handempty holding "
             "--simulate clear")),
    Example("modelfree", "modelfree", "modelfree",
            "plans people labelled step by step after seeing messages: the cheapest messages "
            "that make the robot's plan look explicable, with no model of the person",
            ("xaip model-free --labels labels.jsonl --messages messages.txt --plan plan.txt",)),
)


def example(name: str) -> Example:
    """The example called ``name``; an unknown name is bad input naming the known ones."""
    for entry in EXAMPLES:
        if entry.name == name:
            return entry
    known = ", ".join(entry.name for entry in EXAMPLES)
    raise InputError(f"unknown example {name[:60]!r} (one of {known}; see xaip examples)")


def example_files(entry: Example) -> Iterator[tuple[str, bytes]]:
    """(file name, content) of each of the example's files."""
    root = entry.root()
    for name in entry.files():
        yield name, (root / name).read_bytes()
