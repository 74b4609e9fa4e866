"""The words the table may give as clues, per language: the list kept here (``data/vocabulary.LANG.txt``,
written for pi-table: words a player knows at once) and the words of the language's deck, which are
good clues when they are not on the board."""

from __future__ import annotations

from importlib import resources

from ..ui.words import LISTS, load_words
from .giver import NoClue


def written(name: str) -> list[str]:
    """The words of the data file ``name``, one or more a line; ``#`` starts a comment."""
    text = resources.files(__package__).joinpath("data", name).read_text(encoding="utf-8")
    return [word for line in text.splitlines() for word in line.split("#", 1)[0].split()]


def vocabulary(lang: str) -> tuple[str, ...]:
    """The clue words of ``lang`` (a code of ``ui.words.LISTS``), each once, sorted."""
    if lang not in LISTS:
        raise NoClue("clues are given in {allowed}, not {value!r}", allowed=", ".join(LISTS), value=lang)
    return tuple(sorted(set(written(f"vocabulary.{lang}.txt")) | set(load_words(lang))))


def vocabularies() -> dict[str, tuple[str, ...]]:
    """Every language's clue words."""
    return {lang: vocabulary(lang) for lang in LISTS}
