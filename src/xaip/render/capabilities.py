"""Capability results for people: English capability cards, a PDDL domain, example
pictures — registered with :func:`xaip.render.renderer` for :class:`DiscoveryResult`,
:class:`CapabilityModel` and :class:`LearnedModel` (JSON is their ``to_dict()``).

Why templates per predicate: a card is only useful if a person can read it at a glance
("If ganon is at cell1 and alive, the agent can act so that cell1 is empty and ganon is not
alive"). The bundled vocabularies get hand-written phrases; any other predicate is phrased
from its description, whose ``?name`` placeholders are filled with the arguments in order,
or from its name.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

from xaip.capabilities.discovery import DiscoveryResult
from xaip.capabilities.model import Capability, CapabilityModel, Literal
from xaip.capabilities.symbolic import LearnedModel
from xaip.errors import InputError
from xaip.figures import Colour, Sheet
from xaip.planning.pddl.model import (
    OBJECT,
    Action,
    And,
    AndEffect,
    Domain,
    Not,
    TypedName,
)
from xaip.planning.pddl.model import Atom as PddlAtom
from xaip.planning.pddl.model import Predicate as PddlPredicate
from xaip.planning.pddl.writer import write_domain
from xaip.render import renderer
from xaip.vocab.core import ANY, Vocabulary

#: predicate -> (positive phrase, negative phrase); ``{0}``, ``{1}`` are the arguments.
PHRASES: dict[str, tuple[str, str]] = {
    "at": ("{0} is at {1}", "{0} is not at {1}"),
    "wall": ("there is a wall at {0}", "there is no wall at {0}"),
    "clear": ("{0} is empty", "{0} is not empty"),
    "has_key": ("the player has the key", "the player does not have the key"),
    "escaped": ("the player has escaped", "the player has not escaped"),
    "alive": ("{0} is alive", "{0} is not alive"),
    "next_to": ("the player is next to {0}", "the player is not next to {0}"),
    "pasta_cooked": ("the pasta is cooked", "the pasta is not cooked"),
    "is_door": ("{0} has a door", "{0} has no door"),
    "is_hole": ("{0} has a hole", "{0} has no hole"),
    "is_goal": ("{0} is the goal", "{0} is not the goal"),
    "is_block": ("{0} has a block", "{0} has no block"),
    "player_has": ("the player holds {0}", "the player does not hold {0}"),
    "placed": ("{0} is placed on the snowman", "{0} is not placed on the snowman"),
}


def term_text(term: str) -> str:
    """``?cell1`` -> ``cell1``; constants as they are."""
    return term[1:] if term.startswith("?") else term


def literal_text(literal: Literal, vocabulary: Vocabulary | None = None) -> str:
    """One literal as an English phrase."""
    atom = literal.atom
    args = [term_text(t) for t in atom.args]
    phrases = PHRASES.get(atom.predicate)
    if phrases is not None and phrases[0].count("{") == len(args):
        return (phrases[0] if literal.positive else phrases[1]).format(*args)
    description = ""
    if vocabulary is not None and atom.predicate in vocabulary:
        description = vocabulary[atom.predicate].description.strip()
    if description:
        holes = re.findall(r"\?[A-Za-z_][\w-]*", description)
        if len(dict.fromkeys(holes)) == len(args):
            text = description
            for hole, arg in zip(dict.fromkeys(holes), args, strict=True):
                text = text.replace(hole, arg)
            return text if literal.positive else f"it is not the case that {text}"
        if not args:
            return description if literal.positive else f"it is not the case that {description}"
    plain = f"{atom.predicate}({', '.join(args)})"
    return plain if literal.positive else f"not {plain}"


def _join(parts: list[str]) -> str:
    if not parts:
        return ""
    if len(parts) == 1:
        return parts[0]
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def card_text(capability: Capability, vocabulary: Vocabulary | None = None) -> str:
    """The English card of a capability."""
    pre = [literal_text(lit, vocabulary) for lit in capability.preconditions]
    eff = [literal_text(lit, vocabulary) for lit in capability.effects]
    head = f"If {_join(pre)}, the" if pre else "In any state, the"
    return f"{head} agent can act so that {_join(eff) or 'nothing changes'}."


#: Why a fact's role stayed open, in words (the JSON keeps the reason names).
_OPEN_WORDS = {"unobservable": "that no query can observe",
               "ambiguous": "that the agent's answers did not decide",
               "never-true": "that never held in any state seen"}


def card(capability: Capability) -> str:
    """A multi-line card: name, parameters, when, then, and what stayed open."""
    lines = [f"Capability {capability.name}"
             + (f"({', '.join(f'{term_text(v)}: {t}' for v, t in capability.parameters)})"
                if capability.parameters else "")]
    lines.append(f"  {capability.text}")
    if capability.open:
        reasons: dict[str, int] = {}
        for t in capability.open:
            reasons[t.reason] = reasons.get(t.reason, 0) + 1
        count = len(capability.open)
        lines.append(f"  ({count} fact{'' if count == 1 else 's'} not settled, written as "
                     "the likeliest: " + "; ".join(
                         f"{n} {_OPEN_WORDS.get(r, r)}" for r, n in sorted(reasons.items()))
                     + "; --json lists them)")
    if not capability.reliable:
        lines.append("  unreliable: " + "; ".join(capability.notes))
    return "\n".join(lines)


@renderer(CapabilityModel, "text")
def model_text(model: CapabilityModel) -> str:
    """Every capability's card."""
    return "\n\n".join(card(c) for c in model.capabilities)


@renderer(DiscoveryResult, "text")
def discovery_text(result: DiscoveryResult) -> str:
    """The cards, then what the run cost and whether it finished and was checked."""
    text = model_text(result.model) or "no capabilities found"
    st = result.stats
    if not result.status.finished:
        text += "\n\nbudget exhausted: the model holds what was learned by then"
    text += (f"\n\n{st.capabilities} capabilities, {st.queries} queries "
             f"({st.asked} asked, {st.cached} from the store), {result.seconds:.2f} s, "
             f"{1000 * st.seconds_per_query:.2f} ms/query")
    if result.verified:
        text += "; verified independently (trace consistency, realisability)"
    if result.listing is not None:
        text += "\nguard: " + result.listing.text()
    return text


@renderer(DiscoveryResult, "pddl")
def discovery_pddl(result: DiscoveryResult) -> str:
    return to_pddl(result.model)


@renderer(LearnedModel, "text")
def learned_text(result: LearnedModel) -> str:
    """The learned domain, then what learning cost."""
    head = "" if result.status.finished else "; budget exhausted: not every action learned\n"
    return (f"{head}{result.pddl.rstrip()}\n; {result.queries} queries, "
            f"{result.seconds:.3f} s" + ("; verified against the hidden model"
                                          if result.verified else ""))


@renderer(LearnedModel, "pddl")
def learned_pddl(result: LearnedModel) -> str:
    return result.pddl


def _pddl_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", name)


def to_domain(model: CapabilityModel) -> Domain:
    """The capability model as a PDDL domain (capabilities become actions)."""
    types = tuple((t, OBJECT) for t in model.types)
    predicates = tuple(
        PddlPredicate(name, tuple(
            TypedName(f"?x{i + 1}", OBJECT if t == ANY else t) for i, t in enumerate(params)))
        for name, params in model.predicates)
    actions = []
    for cap in model.capabilities:
        pre = And(tuple(
            PddlAtom(lit.atom.predicate, lit.atom.args) if lit.positive
            else Not(PddlAtom(lit.atom.predicate, lit.atom.args))
            for lit in cap.preconditions))
        eff = AndEffect(tuple(
            PddlAtom(lit.atom.predicate, lit.atom.args) if lit.positive
            else Not(PddlAtom(lit.atom.predicate, lit.atom.args))
            for lit in cap.effects))
        actions.append(Action(_pddl_name(cap.name),
                              tuple(TypedName(v, t) for v, t in cap.parameters), pre, eff))
    return Domain(
        _pddl_name(model.name or "capabilities"),
        (":strips", ":typing", ":negative-preconditions"),
        types,
        tuple(TypedName(n, t) for n, t in model.constants),
        predicates,
        (),
        tuple(actions),
    )


@renderer(CapabilityModel, "pddl")
def to_pddl(model: CapabilityModel) -> str:
    """The capability model as PDDL text."""
    return write_domain(to_domain(model))


def write_pictures(simulator: Any, model: CapabilityModel, directory: str | Path,
                   vocabulary: Vocabulary | None = None) -> list[Path]:
    """One PNG per capability example: ``NAME-before.png`` and ``NAME-after.png`` in the
    directory ``directory`` (created if missing), each titled with the capability and its
    card, the cells its parameters stand for framed and named (found with ``vocabulary``,
    see :func:`example_binding`), objects named and a legend (:func:`capability_png`).
    A path that exists and is not a directory, or a directory that cannot be written, is
    bad input (never overwritten)."""
    out: list[Path] = []
    folder = Path(directory)
    if folder.exists() and not folder.is_dir():
        raise InputError(f"--pictures {folder}: exists and is not a directory (pictures go "
                         "into a directory; give a new or existing directory)")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for cap in model.capabilities:
            if cap.example is None:
                continue
            for label, state in zip(("before", "after"), cap.example, strict=True):
                if state is None:
                    continue
                path = folder / f"{_pddl_name(cap.name)}-{label}.png"
                path.write_bytes(capability_png(simulator, cap, label, vocabulary))
                out.append(path)
    except OSError as exc:
        raise InputError(f"--pictures {folder}: cannot write ({exc.strerror or exc})") \
            from None
    return out


def example_binding(capability: Capability, vocabulary: Vocabulary) -> dict[str, str]:
    """Objects for the capability's parameters in its example: the first assignment (in
    sorted order, by type) under which every precondition holds in the example's state
    before and every effect in the state after, read through ``vocabulary``; ``{}`` when
    there is no example, no parameter or no such assignment (then the picture names no
    cell). Why search: discovery keeps the example states, not the binding that lifted
    them, and a person needs to see which cell ``cell1`` is."""
    if capability.example is None or not capability.parameters:
        return {}
    before, after = capability.example
    if before is None or after is None:
        return {}
    try:
        holds = [{(a.predicate, a.args) for a in vocabulary.abstract(state)}
                 for state in (before, after)]
        objects = vocabulary.objects(before)
    except InputError:
        return {}
    pools = [sorted(o for o, t in objects.items() if t == kind or kind in (ANY, OBJECT))
             for _, kind in capability.parameters]
    names = [name for name, _ in capability.parameters]
    checks = [(0, lit) for lit in capability.preconditions] + \
        [(1, lit) for lit in capability.effects]
    for tried, choice in enumerate(itertools.product(*pools)):
        if tried >= 200_000:  # a picture is not worth a long search
            break
        binding = dict(zip(names, choice, strict=True))
        if all(((lit.atom.predicate, tuple(binding.get(t, t) for t in lit.atom.args))
                in holds[side]) == lit.positive for side, lit in checks):
            return binding
    return {}


_BOUND: Colour = (200, 30, 160)


def capability_png(simulator: Any, capability: Capability, which: str,
                   vocabulary: Vocabulary | None = None) -> bytes:
    """:func:`capability_sheet` as PNG bytes."""
    from xaip.figures import sheet_png

    return sheet_png(capability_sheet(simulator, capability, which, vocabulary))


def capability_sheet(simulator: Any, capability: Capability, which: str,
                     vocabulary: Vocabulary | None = None) -> Sheet:
    """The capability's example state ``which`` (``before`` or ``after``) as a picture a
    person reads: the capability's name and card as title and text, the example's
    parameter cells framed and named, objects named (the vocabulary's ``at`` objects, or
    the game's legend words), numbered rows and columns and a legend. Games without a
    grid are drawn by their own ``render_png``, with the same title and text."""
    from xaip.figures import Image, Key, Sheet

    if capability.example is None:
        raise InputError(f"capability {capability.name} has no example to draw")
    state = capability.example[0 if which == "before" else 1]
    binding = {} if vocabulary is None else example_binding(capability, vocabulary)
    title = f"Capability {capability.name}: " + (
        "before (the conditions hold)" if which == "before" else
        "after (the agent acted; the effects hold)")
    lines = [capability.text or card_text(capability, vocabulary)]
    if binding:
        lines.append("In this example " + ", ".join(
            f"{term_text(v)} = {o}" for v, o in binding.items()) + ".")
    if not hasattr(simulator, "cell_layers"):
        return Sheet(title, [_own_picture(simulator, state, Image)], lines=lines)
    from xaip.agents.pictures import state_sheet

    board = simulator.board_of(state)
    where = {name: divmod(index, board.cols) for index, name in enumerate(board.names)}
    outlines: dict[tuple[int, int], Colour] = {}
    corners: dict[tuple[int, int], str] = {}
    for variable, obj in binding.items():
        if obj in where:
            outlines[where[obj]] = _BOUND
            corners[where[obj]] = term_text(variable)
    labels: dict[tuple[int, int], list[str]] | None = None
    if vocabulary is not None and "at" in vocabulary:
        try:
            atoms = vocabulary.abstract(state, include_types=False)
        except InputError:
            atoms = frozenset()
        else:
            labels = {}
            for atom in sorted(atoms, key=str):
                if atom.predicate == "at" and len(atom.args) == 2 and atom.args[1] in where:
                    labels.setdefault(where[atom.args[1]], []).append(atom.args[0])
    extra = [Key(_BOUND, "a cell the capability's parameters name", "frame")] \
        if outlines else []
    return state_sheet(simulator, state, title, lines=lines, labels=labels,
                       outlines=outlines, corners=corners, extra=extra)


def _own_picture(simulator: Any, state: Any, image: Any) -> Any:
    """A simulator's own ``render_png`` of ``state`` read back as a picture panel."""
    import tempfile

    from PIL import Image as PILImage

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "state.png"
        try:
            simulator.render_png(state, path)
        except (NotImplementedError, AttributeError) as exc:
            raise InputError(f"simulator {getattr(simulator, 'name', '?')} cannot draw its "
                             f"states (render_png: {exc or type(exc).__name__})") from None
        with PILImage.open(path) as picture:
            rgb = picture.convert("RGB")
            return image(rgb.width, rgb.height, rgb.tobytes())
