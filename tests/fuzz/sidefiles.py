"""Hostile side files and option values for every command, shared by the fuzz tests and
``scripts/fuzz_campaign.py``.

Why: the first fuzz round mutated PDDL and plan files only; issue 22 found crashes and hangs
in everything else a command reads or is given -- vocabularies, levels, specs, cost files,
observation files, grids, policies (``/dev/zero``, FIFOs with no writer, type-confused JSON,
NaN) and option values (``--max-nodes 2**63``, ``--recheck -5``). Each :class:`Case` is one
command on bundled inputs with the side-file options and number options it takes; a trial
replaces one of them with something hostile (:func:`trial`).
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import xaip
from tests.fuzz.mutations import mutate

DOMAINS = Path(xaip.__file__).parent / "domains"


@dataclass(frozen=True)
class Case:
    """One command on bundled inputs: ``argv`` runs (exit 0 or 1) within ``--max-seconds``;
    ``files`` maps a side-file option to the bundled file it normally gets (its text is
    the starting point of mutations); ``numbers`` lists options that take a number."""

    command: str
    argv: tuple[str, ...]
    files: dict[str, Path | str] = field(default_factory=dict)  # a bundled file, or its text
    numbers: tuple[str, ...] = ()
    budget: bool = True  # takes --max-seconds
    required: tuple[str, ...] = ()  # options of ``files`` always given (valid, then maybe not)


def _d(*parts: str) -> str:
    return str(DOMAINS.joinpath(*parts))


BLOCKS = (_d("blocksworld", "domain.pddl"), _d("blocksworld", "problem-5.pddl"))
FETCH = (_d("fetch", "robot.pddl"), _d("fetch", "human.pddl"), _d("fetch", "problem.pddl"))
SOKOBAN = DOMAINS / "sokoban"
PORT = DOMAINS / "observers" / "port"
FETCH_PLAN = "(tuck)\n(pick-up b1 loc1)\n(move loc1 loc2)\n(put-down b1 loc2)\n"
FETCH_ANNOTATIONS = "0.5 precondition move (hand-tucked)\n0.3 init (at-robby loc2)\n"
PHRASES = '{"at": "get to {0}", "have": "have {0}"}'
LEARNED = '{"weights": {"action": 0.5, "causal": 0.25, "state": 0.25}, "bias": 0.0}'
#: the bundled airport example's policy, as ``xaip summarize --save-policy`` writes it
POLICY = json.dumps(
    {'format': 'xaip-policy',
     'policy': {'(at gate10) (passed-security)': 'board gate10 flight-42',
                '(at home)': 'walk home the-bus-stop',
                '(at station1)': 'take-train station1 the-shuttle-station station2',
                '(at station2)': 'walk station2 the-shuttle-station',
                '(at the-airport)': 'pass-security the-airport',
                '(at the-airport) (passed-security)': 'go-to-gate the-airport gate10 '
                                                      'flight-42',
                '(at the-bus-stop)': 'take-bus the-bus-stop station1',
                '(at the-north-platform)': 'ride-shuttle the-north-platform the-airport',
                '(at the-shuttle-station)': 'go-to-platform the-shuttle-station '
                                            'the-north-platform the-south-platform',
                '(at the-south-platform)': 'ride-shuttle the-south-platform the-airport'},
     'task': 'to-the-airport',
     'version': 1})
LABELS = '{"plan": ["tuck", "pick-up b1 loc1"], "labels": [["tidy"], []]}\n'

CASES: tuple[Case, ...] = (
    Case("plan", ("plan", *BLOCKS), numbers=("--max-nodes", "--cost-bound")),
    Case("plan-optimal", ("plan", *BLOCKS, "--optimal"), numbers=("--max-nodes",
                                                                   "--cost-bound")),
    Case("landmarks", ("landmarks", *BLOCKS), numbers=("--max-nodes",)),
    Case("explain", ("explain", *FETCH),
         files={"--foil": FETCH_PLAN, "--plan": FETCH_PLAN, "--human-problem": FETCH[2]},
         numbers=("--max-nodes", "--alpha", "--veto")),
    Case("explain-annotated", ("explain", *FETCH, "--type", "conformant"),
         files={"--annotations": FETCH_ANNOTATIONS}, required=("--annotations",),
         numbers=("--max-nodes", "--alpha", "--question-cost", "--annotation-cost")),
    Case("summarize", ("summarize",),
         files={"--phrases": PHRASES},
         numbers=("--max-nodes", "--max-completions", "--dead-end-cost")),
    Case("why-not", ("why-not", "sokoban-switch"),
         files={"--vocabulary": SOKOBAN / "switch.json", "--level": SOKOBAN / "switch-1.txt",
                "--plan": SOKOBAN / "switch-1.plan.txt", "--foil": SOKOBAN / "switch-1.foil.txt"},
         numbers=("--max-nodes", "--budget", "--seed")),
    Case("design", ("design", _d("restaurant", "design.json")),
         files={"": DOMAINS / "restaurant" / "design.json"}, numbers=("--max-nodes",)),
    Case("balance", ("balance", _d("balanced", "robot.pddl"), _d("balanced", "human.pddl"),
                     _d("balanced", "problem.pddl")),
         files={"--explanation-cost": DOMAINS / "balanced" / "costs.json"},
         numbers=("--max-nodes", "--alpha", "--beta", "--gamma", "--communication-cost")),
    Case("observe", ("observe", str(PORT / "domain.pddl"), str(PORT / "problem.pddl"),
                     "--mode", "legible-goal", "--observations", str(PORT / "observer.json"),
                     "--goals", str(PORT / "goals.json")),
         files={"--observations": PORT / "observer.json", "--goals": PORT / "goals.json"},
         numbers=("--max-nodes", "--j", "--k", "--max-cost", "--horizon")),
    Case("observe-deceptive", ("observe", "--mode", "deceptive"),
         files={"--grid": DOMAINS / "observers" / "grids" / "tiny.txt"}, required=("--grid",),
         numbers=("--max-nodes", "--beta")),
    Case("explicable", ("explicable", *FETCH),
         files={"--human-problem": FETCH[2], "--labels": LABELS},
         numbers=("--max-nodes", "--max-cost", "--weights")),
    Case("explicable-learned", ("explicable", *FETCH, "--distance", "learned"),
         files={"--model": LEARNED}, required=("--model",), numbers=("--max-nodes",)),
    Case("summarize-policy", ("summarize",), files={"--policy": POLICY},
         numbers=("--max-nodes",)),
    Case("discover", ("discover", "zelda", "--quiet"), files={"--store": ""},
         numbers=("--max-queries", "--recheck", "--tasks", "--seed")),
)

#: Values for number options: huge, negative, non-finite, not numbers at all.
NUMBERS = (
    "0", "1", "-1", "-5", str(2**63 - 1), str(2**63), str(2**64), "9" * 400, "1e308", "1e999",
    "nan", "NaN", "inf", "-inf", "0.5", "-0.0", "1_000", "0x10", "", " ", "abc", "1e-400",
)

#: JSON values that replace a value of the right type in a side file.
CONFUSED: tuple[object, ...] = (None, [], {}, 0, -1, 2**63, 1.5, "", "x" * 300, True,
                                [None], {"": None}, [[[]]], "NaN")


def _confuse(value: object, rng: random.Random) -> object:
    """``value`` with one node somewhere replaced by a value of another type."""
    if isinstance(value, dict) and value and rng.random() < 0.7:
        key = rng.choice(list(value))
        return {**value, key: _confuse(value[key], rng)}
    if isinstance(value, list) and value and rng.random() < 0.7:
        index = rng.randrange(len(value))
        return [*value[:index], _confuse(value[index], rng), *value[index + 1:]]
    return rng.choice(CONFUSED)


def _json_text(text: str, rng: random.Random) -> str:
    """A type-confused version of the JSON ``text`` (or raw hostile JSON tokens)."""
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if data is None or rng.random() < 0.2:
        return rng.choice(("NaN", "[1e999]", "{\"a\": NaN}", "[" * 5000, "{" * 10,
                           "[" + "9" * 5000 + "]", "{\"x\": -Infinity}", "null", "[]", "{}"))
    return json.dumps(_confuse(data, rng))


def _fifo(folder: Path, rng: random.Random) -> Path:
    path = folder / f"fifo-{rng.randrange(10**6)}"
    os.mkfifo(path)
    return path


#: Hostile file makers: (name, function(folder, original text, rng) -> path)
Maker = Callable[[Path, str, random.Random], Path]


def _write(folder: Path, data: bytes, suffix: str) -> Path:
    path = folder / f"side-{len(list(folder.iterdir()))}{suffix}"
    path.write_bytes(data)
    return path


MAKERS: dict[str, Maker] = {
    "device": lambda folder, text, rng: Path("/dev/zero"),
    "directory": lambda folder, text, rng: folder,
    "fifo": lambda folder, text, rng: _fifo(folder, rng),
    "missing": lambda folder, text, rng: folder / "no-such-file",
    "empty": lambda folder, text, rng: _write(folder, b"", ".txt"),
    "binary": lambda folder, text, rng: _write(folder, rng.randbytes(rng.choice((1, 100, 5000))),
                                               ".bin"),
    "latin1": lambda folder, text, rng: _write(folder, text.encode("utf-8") + b"\xe9\xff",
                                               ".txt"),
    "mutated": lambda folder, text, rng: _write(
        folder, mutate(text, rng).encode("utf-8", "surrogatepass"), ".txt"),
    "confused-json": lambda folder, text, rng: _write(folder, _json_text(text, rng).encode(),
                                                      ".json"),
}


def trial(case: Case, folder: Path, rng: random.Random, budget: float = 3.0
          ) -> tuple[list[str], str]:
    """One hostile command line for ``case`` (files made in ``folder``) and what was done."""
    argv = list(case.argv)
    for option in case.required:
        original = case.files[option]
        valid = folder / f"valid{option}"
        valid.write_text(original.read_text(encoding="utf-8") if isinstance(original, Path)
                         else original, encoding="utf-8")
        argv += [option, str(valid)]
    choices = [("file", option) for option in case.files] + \
              [("number", option) for option in case.numbers]
    what, option = rng.choice(choices) if choices else ("none", "")
    note = "unchanged"
    if what == "file":
        original = case.files[option]
        text = (original.read_text(encoding="utf-8", errors="replace")
                if isinstance(original, Path) else original)
        maker = rng.choice(sorted(MAKERS))
        if maker == "confused-json" and not text.lstrip().startswith(("{", "[")):
            maker = "mutated"
        path = MAKERS[maker](folder, text, rng)
        if option:
            argv += [option, str(path)]
        else:  # the positional spec of design
            argv[1] = str(path)
        note = f"{option or 'SPEC'} {maker}"
    elif what == "number":
        value = rng.choice(NUMBERS)
        argv.append(f"{option}={value}")
        note = f"{option}={value[:20]}"
    if case.budget:
        argv += ["--max-seconds", str(budget)]
    return argv, note
