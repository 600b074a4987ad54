"""Concepts learned by a small CNN on pictures of states (optional ``torch`` extra):
Montezuma's screens here, Sokoban's drawn levels in :mod:`xaip.concepts.sokoban_screen`.

Why a CNN as well as AdaBoost on RAM (:mod:`xaip.concepts.ram_learn`): a user labels
*pictures*, and some concepts are plain in the picture but awkward in RAM bytes. A stump
tests one byte against a threshold, so "the skull is close on the left" (a difference of
two bytes, with a direction bit) needs many stumps and still errs, while the skull and the
agent sit side by side in the image. Where RAM bytes name the concept directly (a floor
is one value of the y byte) AdaBoost is exact and far cheaper. ``benchmarks/concepts.py``
measures both on the same held-out states.

The network (two strided convolutions, a max-pool that keeps a coarse grid, one linear
layer) sees the grey screen halved to 105x80 pixels. Training is deterministic: seeded,
on the CPU, with ``torch.use_deterministic_algorithms(True)``. The held-out confusion
rates (Laplace-smoothed, as for AdaBoost) become the concept's noise model.

torch is the optional extra ``torch`` (``pip install 'xaip[torch]'``, CPU build
``torch==2.13.0``); without it these functions raise :class:`InputError`.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from xaip.concepts.montezuma import Montezuma, MontezumaState, shared_simulator
from xaip.concepts.ram_learn import RamConcept, measured_concept
from xaip.errors import InputError

HEIGHT, WIDTH = 105, 80  # the 210x160 screen halved


def _torch() -> Any:
    try:  # an optional extra: imported by name so the type checker need not know it
        return importlib.import_module("torch")
    except ImportError:
        raise InputError("CNN concepts need torch: pip install 'xaip[torch]' "
                         "(torch==2.13.0, CPU)") from None


def grey_frame(sim: Montezuma, state: Hashable) -> bytes:
    """The state's screen in grey, halved to ``HEIGHT x WIDTH`` (one byte a pixel)."""
    import numpy as np

    width, height, rgb = sim.frame(state)
    image = np.frombuffer(rgb, dtype=np.uint8).reshape(height, width, 3)
    grey = image.astype(np.float32).mean(axis=2)
    small = grey.reshape(HEIGHT, 2, WIDTH, 2).mean(axis=(1, 3))
    return bytes(small.astype(np.uint8).tobytes())


def _network(torch: Any) -> Any:
    nn = torch.nn
    return nn.Sequential(
        nn.Conv2d(1, 16, 5, stride=2), nn.ReLU(),
        nn.Conv2d(16, 32, 5, stride=2), nn.ReLU(),
        nn.AdaptiveMaxPool2d((10, 8)), nn.Flatten(),
        nn.Linear(32 * 10 * 8, 1))


def _tensor(torch: Any, frames: Sequence[bytes], height: int = HEIGHT,
            width: int = WIDTH) -> Any:
    import numpy as np

    array = np.frombuffer(b"".join(frames), dtype=np.uint8).reshape(-1, 1, height, width)
    return torch.from_numpy(array.astype(np.float32) / 255.0)


def montezuma_frame(state: Hashable) -> bytes:
    """A Montezuma state's grey, halved screen (a module-level function: it pickles)."""
    return grey_frame(shared_simulator(), state)


@dataclass(frozen=True)
class CnnClassifier:
    """A trained network as a concept test: ``draw`` turns a state into its grey
    ``height x width`` picture (one byte a pixel), the network says yes above 0."""

    model: Any
    draw: Callable[[Hashable], bytes] = montezuma_frame
    height: int = HEIGHT
    width: int = WIDTH

    def scores(self, frames: Sequence[bytes]) -> list[float]:
        torch = _torch()
        with torch.no_grad():
            return [float(v) for v in
                    self.model(_tensor(torch, frames, self.height, self.width)).reshape(-1)]

    def __call__(self, state: Hashable) -> bool:
        return self.scores([self.draw(state)])[0] > 0


def train_cnn_concept(name: str, label: Any, states: Sequence[Hashable],
                      draw: Callable[[Hashable], bytes], height: int, width: int, *,
                      holdout: float = 0.3, seed: int = 0, epochs: int = 15,
                      description: str = "", threads: int = 1) -> RamConcept:
    """Train the CNN on the pictures ``draw`` makes of ``states``, labelled by ``label``;
    measure its confusion rates on the held-out part (shuffled by ``seed``). One thread by
    default: the same weights on any machine, and no oversubscription next to the
    sampler's processes."""
    torch = _torch()
    rows = [(draw(s), bool(label(s))) for s in states]
    random.Random(seed).shuffle(rows)
    cut = int(len(rows) * (1 - holdout))
    train, test = rows[:cut], rows[cut:]
    if len({y for _, y in train}) < 2 or not test:
        raise InputError(f"concept {name!r}: the examples need positive and negative "
                         "states in the training part and a held-out part")
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(threads)
    model = _network(torch)
    optimiser = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = torch.nn.BCEWithLogitsLoss()
    x = _tensor(torch, [f for f, _ in train], height, width)
    y = torch.tensor([[1.0 if v else 0.0] for _, v in train])
    order = random.Random(seed + 1)
    indices = list(range(len(train)))
    for _ in range(epochs):
        order.shuffle(indices)
        for start in range(0, len(indices), 64):
            batch = torch.tensor(indices[start:start + 64])
            optimiser.zero_grad()
            loss = loss_fn(model(x[batch]), y[batch])
            loss.backward()
            optimiser.step()
    model.eval()
    classifier = CnnClassifier(model, draw, height, width)
    said = [v > 0 for v in classifier.scores([f for f, _ in test])]
    return measured_concept(name, classifier, description, said, [t for _, t in test],
                            sum(1 for _, truth in rows if truth), len(train),
                            reference=label)


def learn_cnn_concept(name: str, label: Any, states: Sequence[Hashable], *,
                      holdout: float = 0.3, seed: int = 0, epochs: int = 15,
                      description: str = "", sim: Montezuma | None = None,
                      threads: int = 1) -> RamConcept:
    """The Montezuma CNN concept: :func:`train_cnn_concept` on the screens (the same split
    as :func:`~xaip.concepts.ram_learn.learn_ram_concept` for the same ``seed``)."""
    screen = sim or shared_simulator()
    montezuma = [s for s in states if isinstance(s, MontezumaState)]
    draw = montezuma_frame if sim is None else _ScreenOf(screen)
    return train_cnn_concept(name, label, montezuma, draw, HEIGHT, WIDTH, holdout=holdout,
                             seed=seed, epochs=epochs, description=description,
                             threads=threads)


@dataclass(frozen=True)
class _ScreenOf:
    """Draw with a given simulator (tests pass their own)."""

    sim: Montezuma

    def __call__(self, state: Hashable) -> bytes:
        return grey_frame(self.sim, state)
