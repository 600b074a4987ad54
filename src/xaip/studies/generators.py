"""Instance generators a study can name: each returns the files of one generated task.

Why: a sweep over problem sizes should not need hundreds of files on disk; a generator
with a seed makes the same files on every run (and on every Ray node, since the files
travel with the cell). ``blocksworld``, ``gripper`` and ``logistics`` are the classical
generators of :mod:`xaip.domains.generators`; ``flat-tyre`` is a small probabilistic
road-trip domain (:mod:`xaip.studies.flat_tyre`) for policy summaries.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xaip.errors import InputError

Files = list[tuple[str, bytes]]


def _pair(domain_text: str, problem_text: str) -> Files:
    return [("domain.pddl", domain_text.encode()), ("problem.pddl", problem_text.encode())]


def _blocksworld(*args: Any) -> Files:
    from xaip.domains.generators import blocksworld

    return _pair(*blocksworld(*args))


def _gripper(*args: Any) -> Files:
    from xaip.domains.generators import gripper

    return _pair(*gripper(*args))


def _logistics(*args: Any) -> Files:
    from xaip.domains.generators import logistics

    return _pair(*logistics(*args))


def _flat_tyre(*args: Any) -> Files:
    from xaip.studies.flat_tyre import flat_tyre

    return _pair(*flat_tyre(*args))


#: name -> (function, what its arguments are)
GENERATORS: dict[str, tuple[Callable[..., Files], str]] = {
    "blocksworld": (_blocksworld, "n_blocks, seed"),
    "gripper": (_gripper, "n_balls"),
    "logistics": (_logistics, "n_cities, n_packages, seed"),
    "flat-tyre": (_flat_tyre, "n_places, seed"),
}


def generate(name: str, arguments: list[Any], where: str) -> Files:
    """The files of generator ``name`` called with ``arguments`` (whole numbers)."""
    if name not in GENERATORS:
        raise InputError(f"{where}: unknown generator {name!r} (one of "
                         f"{', '.join(sorted(GENERATORS))})")
    function, signature = GENERATORS[name]
    for value in arguments:
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError(f"{where}: generator {name} takes whole numbers ({signature}), "
                             f"not {value!r}")
    try:
        return function(*arguments)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{where}: generator {name}({signature}): {exc}") from None
