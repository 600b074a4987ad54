"""The user's vocabulary: predicates with evaluation functions over simulator states.

Declare predicates with :func:`predicate` (a function returning the true argument tuples),
:func:`predicate_test` (a boolean test per object tuple) and :func:`object_type`; collect them
in a :class:`Vocabulary`; :func:`abstract` turns a state into its set of true ground atoms.
:mod:`xaip.vocab.games` has the paper's vocabularies for the four bundled games and
:func:`concretize`, which turns their abstract states back into concrete game states.

Example (a user's own simulator whose states are ``(x, holding)`` pairs)::

    from xaip.vocab import Vocabulary, abstract, object_type, predicate, predicate_test

    @object_type()
    def cell(state):
        return ["c0", "c1", "c2"]

    @predicate("cell")
    def robot_at(state):
        return [f"c{state[0]}"]

    @predicate_test("cell", "cell")
    def left_of(state, a, b):
        return int(a[1:]) + 1 == int(b[1:])

    @predicate()
    def holding(state):
        return state[1]

    vocab = Vocabulary([robot_at, left_of, holding], [cell])
    abstract(vocab, (1, True))   # {(cell c0), ..., (robot_at c1), (left_of c0 c1), ...}
"""

from __future__ import annotations

from xaip.vocab.core import (
    ANY,
    Predicate,
    Vocabulary,
    VocabularyError,
    abstract,
    object_type,
    predicate,
    predicate_test,
)
from xaip.vocab.games import (
    concretize,
    cookmepasta_vocabulary,
    escape_vocabulary,
    game_vocabulary,
    snowman_vocabulary,
    zelda_vocabulary,
)

__all__ = [
    "ANY",
    "Predicate",
    "Vocabulary",
    "VocabularyError",
    "abstract",
    "concretize",
    "cookmepasta_vocabulary",
    "escape_vocabulary",
    "game_vocabulary",
    "object_type",
    "predicate",
    "predicate_test",
    "snowman_vocabulary",
    "zelda_vocabulary",
]
