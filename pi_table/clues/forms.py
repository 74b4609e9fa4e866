"""Whether a clue word is a board word in disguise: the word itself, a part of it, or one of its
forms. Players refuse such a clue, so the clue-giver never gives one.

The rule, the same for each language: two words are one when, case and accents folded, one holds
the other (the shorter of at least ``PART`` letters: sun, sunflower), their Snowball stems are equal
(the stemmer of the language: English's Porter2, Italian's; mela, mele), or they begin with the same
``PREFIX`` letters (cavallo, cavaliere; horse, horseshoe)."""

from __future__ import annotations

import unicodedata
from functools import cache

import snowballstemmer

STEMMERS = {"en": "english", "it": "italian"}
"""Each language's Snowball stemmer, by its code in ``ui.words.LISTS``."""
PART = 3
PREFIX = 5


@cache
def folded(word: str) -> str:
    """``word`` in lower case without accents (città, citta)."""
    split = unicodedata.normalize("NFKD", word.casefold())
    return "".join(c for c in split if not unicodedata.combining(c))


@cache
def _stemmer(lang: str) -> snowballstemmer.Stemmer:
    return snowballstemmer.stemmer(STEMMERS[lang])


@cache
def stem(word: str, lang: str) -> str:
    """The Snowball stem of ``word`` (folded) in ``lang``."""
    return str(_stemmer(lang).stemWord(folded(word)))


def one_word(clue: str, card: str, lang: str) -> bool:
    """Whether ``clue`` is ``card``, a part of it, or one of its forms in ``lang`` (or the reverse)."""
    a, b = folded(clue), folded(card)
    shorter, longer = sorted((a, b), key=len)
    if len(shorter) >= PART and shorter in longer:
        return True
    if len(shorter) >= PREFIX and a[:PREFIX] == b[:PREFIX]:
        return True
    return shorter == longer or stem(a, lang) == stem(b, lang)
