"""The bundled example: labelled plans of the synthetic Fetch person (seed 0).

The files in ``xaip/domains/modelfree/`` are what :func:`xaip.modelfree.synthetic.generate`
writes for seed 0 (:func:`write_example`; a test regenerates them and compares), so the
truth behind every label is known: the person believes the book's Fetch ``human.pddl``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from xaip.modelfree.data import (
    Message,
    Record,
    messages_text,
    read_messages,
    read_records,
    read_robot_plan,
    records_text,
)

FOLDER = Path(__file__).resolve().parent.parent / "domains" / "modelfree"
FILES = {"messages": "messages.txt", "labels": "labels.jsonl", "plan": "plan.txt",
         "problem": "problem.pddl"}
SEED = 0


@dataclass(frozen=True)
class Example:
    messages: tuple[Message, ...]
    records: tuple[Record, ...]
    plan: tuple[str, ...]


def bundled() -> Example:
    """The bundled messages, labelled plans and robot plan."""
    messages = read_messages(FOLDER / FILES["messages"])
    return Example(messages, read_records(FOLDER / FILES["labels"], messages),
                   read_robot_plan(FOLDER / FILES["plan"]))


def example_files(seed: int = SEED) -> dict[str, str]:
    """The example's files (name -> text) as the generator makes them for ``seed``."""
    from xaip.modelfree.synthetic import generate
    from xaip.planning.pddl.writer import write_problem

    data = generate(seed)
    header = (f"Messages of the synthetic Fetch person (xaip.modelfree.synthetic, seed "
              f"{seed}); MIT.")
    return {FILES["messages"]: messages_text(data.messages, header),
            FILES["labels"]: records_text(data.records),
            FILES["plan"]: "".join(f"({s})\n" for s in data.plan),
            FILES["problem"]: write_problem(data.problem)}


def write_example(folder: Path = FOLDER, seed: int = SEED) -> None:
    """Write :func:`example_files` into ``folder`` (how the bundled files were made)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in example_files(seed).items():
        (folder / name).write_text(text, encoding="utf-8")
