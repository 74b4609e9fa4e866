"""``pi-table bench cards``: the card reader on photographs of laid-out grids (``photos``), words
from both decks, taken in turn under each condition a phone meets; how many words it gets right
before the spymaster confirms them, overall and by condition, how many it leaves for the
spymaster to type (None) and how many it gets wrong (a wrong word the spymaster must notice), and
the time a picture takes to read, p50 and p99, on the clock and in the process's CPU time. The
pictures are made before the clock runs; with ``cpu``, the reading is held to that share of one
core (``held``; a Pi 4's, docs/dev/cards.md). Needs Tesseract and its English and Italian data.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from ..cards.reading import CARDS, PictureRefused
from ..cards.tesseract import read_cards
from ..ui.words import LISTS, load_words
from . import percentiles
from .held import held
from .photos import SURFACES, Scene, deal, photograph

Condition = Callable[[random.Random], dict[str, Any]]


def _turn(rng: random.Random) -> dict[str, Any]:
    quarter = rng.choice((90, 180, 270))
    return {"turn": quarter + rng.uniform(-10, 10), "portrait": quarter != 180}


def _slant(rng: random.Random) -> dict[str, Any]:
    return {"tilt": rng.uniform(15, 30), "tilt_towards": rng.uniform(0, 360)}


def _everything(rng: random.Random) -> dict[str, Any]:
    return {**_turn(rng), **_slant(rng), "blur": rng.uniform(0.5, 1.5), "glare": rng.uniform(0.1, 0.3),
            "shadow": rng.uniform(0.2, 0.5), "quality": rng.randint(50, 75), "noise": 3.0}


CONDITIONS: dict[str, Condition] = {
    "clean": lambda rng: {"turn": rng.uniform(-3, 3)},
    "turned": _turn,
    "slanted": _slant,
    "blurred": lambda rng: {"blur": rng.uniform(1.0, 2.0)},
    "glare": lambda rng: {"glare": rng.uniform(0.15, 0.35)},
    "shadow": lambda rng: {"shadow": rng.uniform(0.3, 0.6)},
    "jpeg": lambda rng: {"quality": rng.randint(30, 50), "noise": 5.0},
    "everything": _everything,
}


def pictures(count: int, seed: int) -> list[tuple[str, str, tuple[str, ...], bytes]]:
    """``count`` photographs, the conditions and the languages taken in turn: (condition, language,
    the words in place order, the JPEG)."""
    rng = random.Random(seed)
    decks = {lang: list(load_words(lang)) for lang in LISTS}
    made = []
    for number in range(count):
        condition = list(CONDITIONS)[number % len(CONDITIONS)]
        lang = LISTS[(number // len(CONDITIONS)) % len(LISTS)]
        words = deal(decks[lang], rng)
        scene = Scene(words, surface=rng.choice(SURFACES), fill=rng.uniform(0.7, 0.92),
                      **CONDITIONS[condition](rng))
        made.append((condition, lang, words, photograph(scene, seed=rng.randrange(2**31))))
    return made


def run(count: int = 40, seed: int = 1, cpu: float | None = None) -> dict[str, float | dict[str, float]]:
    """Read ``count`` photographs and give the figures."""
    made = pictures(count, seed)
    decks = {lang: list(load_words(lang)) for lang in LISTS}
    read_cards(made[0][3], made[0][1], decks[made[0][1]])  # Tesseract's models loaded before the clock runs
    seconds: list[float] = []
    cpu_seconds: list[float] = []  # the process's own, every thread's: what a busy machine does not stretch
    tally: dict[str, list[int]] = {name: [0, 0, 0, 0] for name in CONDITIONS}  # right, blank, wrong, refused

    def read_all() -> None:
        for condition, lang, words, picture in made:
            started, spent = time.perf_counter(), time.process_time()
            try:
                got = read_cards(picture, lang, decks[lang]).words
            except PictureRefused:
                got = (None,) * CARDS
                tally[condition][3] += 1
            seconds.append(time.perf_counter() - started)
            cpu_seconds.append(time.process_time() - spent)
            for word, expected in zip(got, words, strict=True):
                tally[condition][0 if word == expected else 1 if word is None else 2] += 1

    throttled: dict[str, float] = {}
    if cpu is None:
        read_all()
    else:
        with held(cpu) as group:
            before = group.throttled()
            read_all()
            throttled["throttled"] = group.throttled() - before
    right, blank, wrong, refused = (sum(figures[i] for figures in tally.values()) for i in range(4))
    results: dict[str, float | dict[str, float]] = {
        "pictures": count, "right_pct": round(100 * right / (count * CARDS), 2),
        "blank_pct": round(100 * blank / (count * CARDS), 2), "wrong_pct": round(100 * wrong / (count * CARDS), 2),
        "refused": refused, **percentiles(seconds, digits=0),
        **{f"cpu_{name}": value for name, value in percentiles(cpu_seconds, digits=0).items()}, **throttled}
    for name, (r, b, w, x) in tally.items():
        cards = r + b + w
        if cards:
            results[name] = {"right_pct": round(100 * r / cards, 1), "blank": b, "wrong": w, "refused": x}
    return results
