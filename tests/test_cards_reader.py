"""The card reader (issue 79): a photograph of the laid-out grid read to its 25 words in place order,
whatever way the phone was held, and every picture it cannot use refused with why and what to do;
bad bytes never raise anything else. The photographs are the bench's (pi_table/bench/photos.py)."""

from __future__ import annotations

import io
import random
import re
import struct
import subprocess
import sys
import zlib

import numpy as np
import pytest
from PIL import Image

from pi_table.bench.photos import Scene, deal, photograph
from pi_table.cards import grid, tesseract
from pi_table.cards.reading import CARDS, PictureRefused
from pi_table.cards.tesseract import (
    CUT_OFF,
    MAX_BYTES,
    NO_GRID,
    NO_READER,
    NOT_A_PICTURE,
    TOO_BIG,
    TOO_DARK,
    TOO_SLANTED,
    Deckmatch,
    read_cards,
)
from pi_table.ui.words import load_words

from helpers import require_tools

DECKS = {lang: list(load_words(lang)) for lang in ("en", "it")}


def refused(picture: bytes) -> str:
    with pytest.raises(PictureRefused) as caught:
        read_cards(picture, "en", DECKS["en"])
    return caught.value.expected.template


def jpeg(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, "JPEG", quality=85)
    return out.getvalue()


# --- bad bytes: refused before any reading ------------------------------------------------------

@pytest.mark.parametrize("picture", [b"", b"hello", b"\xff\xd8\xff\xe0" + bytes(40), b"\x89PNG\r\n\x1a\n" + bytes(30),
                                     random.Random(7).randbytes(5000)], ids=["empty", "text", "jpeg-head", "png-head",
                                                                             "noise"])
def test_bytes_that_are_no_picture_are_refused_as_such(picture):
    assert refused(picture) == NOT_A_PICTURE


def test_a_truncated_photo_is_refused_as_no_picture():
    whole = jpeg(Image.new("RGB", (640, 480), (90, 60, 40)))
    assert refused(whole[: len(whole) // 2]) == NOT_A_PICTURE


def test_more_bytes_than_a_phone_sends_are_refused_unread():
    assert refused(b"\xff\xd8" + bytes(MAX_BYTES)) == TOO_BIG


def _png_claiming(width: int, height: int) -> bytes:
    """A small PNG whose header says it is ``width`` by ``height``: a decompression bomb's shape."""
    out = io.BytesIO()
    Image.new("L", (8, 8)).save(out, "PNG")
    data = bytearray(out.getvalue())
    start = data.index(b"IHDR")
    data[start + 4: start + 12] = struct.pack(">II", width, height)
    data[start + 17: start + 21] = struct.pack(">I", zlib.crc32(bytes(data[start: start + 17])))
    return bytes(data)


def _jpeg_claiming(width: int, height: int) -> bytes:
    data = bytearray(jpeg(Image.new("RGB", (16, 16))))
    frame = data.index(b"\xff\xc0")
    data[frame + 5: frame + 9] = struct.pack(">HH", height, width)
    return bytes(data)


@pytest.mark.parametrize("picture", [_png_claiming(30000, 30000), _png_claiming(6000, 5000),
                                     _jpeg_claiming(65000, 65000)], ids=["png-bomb", "png-over-whole", "jpeg-bomb"])
def test_a_picture_claiming_too_many_pixels_is_refused_before_decoding(picture):
    assert len(picture) < 2000
    assert refused(picture) == TOO_BIG


def test_a_dark_picture_is_refused_as_too_dark():
    dark = Image.new("RGB", (1600, 1200), (12, 10, 8))
    dark.paste((40, 38, 35), (300, 300, 1300, 900))
    assert refused(jpeg(dark)) == TOO_DARK


def test_a_picture_of_the_table_alone_has_no_grid():
    rng = np.random.default_rng(3)
    table = (np.array([92, 64, 42]) * (1 + 0.1 * rng.normal(size=(600, 800, 1)))).clip(0, 255).astype(np.uint8)
    assert refused(jpeg(Image.fromarray(table, "RGB"))) == NO_GRID


# --- what is read, completed from the deck -------------------------------------------------------

def test_what_is_read_snaps_to_the_one_close_word_of_the_deck():
    words = Deckmatch(["apple", "anchor", "bat", "cat", "river"])
    assert words.nearest("APPLE\n") == ("apple", 0)
    assert words.nearest("APP1E") == ("apple", 1)
    assert words.nearest("RlVER") == ("river", 1)
    assert words.nearest("") is None
    assert words.nearest("XYZQWV") is None
    assert words.nearest("HAT") is None  # as close to BAT as to CAT: the spymaster types it


def test_the_patches_of_a_mask_are_told_apart():
    mask = np.zeros((6, 8), dtype=bool)
    mask[1:3, 1:3] = True
    mask[4:6, 2:7] = True
    mask[0:2, 6:8] = True
    labels = grid.components(mask)
    assert len(set(labels[mask].tolist())) == 3
    assert (labels[~mask] == -1).all()
    assert labels[1, 1] == labels[2, 2] != labels[5, 6]


# --- photographs read (Tesseract) ----------------------------------------------------------------

slow = pytest.mark.slow


def _read(scene: Scene, lang: str, seed: int = 1) -> tuple[str | None, ...]:
    require_tools("tesseract")
    return read_cards(photograph(scene, seed), lang, DECKS[lang]).words


@slow
@pytest.mark.parametrize("lang", ["en", "it"])
def test_a_clean_grid_is_read_whole_in_place_order(lang):
    words = deal(DECKS[lang], random.Random(lang))
    assert _read(Scene(words), lang) == words


@slow
@pytest.mark.parametrize("turn", [90, 180, 270, 7, -8, 183])
def test_the_grid_is_read_upright_however_the_phone_was_held(turn):
    words = deal(DECKS["en"], random.Random(turn))
    assert _read(Scene(words, turn=turn, portrait=turn % 180 == 90), "en", seed=abs(turn)) == words


@slow
def test_a_slanted_blurred_photo_with_glare_and_shadow_is_read_almost_whole():
    words = deal(DECKS["en"], random.Random(11))
    read = _read(Scene(words, turn=95, tilt=28, tilt_towards=30, blur=1.2, glare=0.25, shadow=0.4, quality=60,
                       portrait=True), "en", seed=11)
    right = sum(a == b for a, b in zip(read, words, strict=True))
    assert right >= CARDS - 2, (read, words)
    assert all(word is None or word == expected for word, expected in zip(read, words, strict=True))


@slow
@pytest.mark.parametrize(("scene", "why"), [
    ({"fill": 1.25}, CUT_OFF),
    ({"shift": (0.22, 0.0)}, CUT_OFF),
    ({"tilt": 62, "tilt_towards": 90}, TOO_SLANTED),
    ({"light": 0.12}, TOO_DARK),
], ids=["too-close", "off-centre", "slanted", "dark"])
def test_a_photo_that_cannot_be_read_says_why(scene, why):
    words = deal(DECKS["en"], random.Random(5))
    picture = photograph(Scene(words, **scene), 5)
    assert refused(picture) == why


@slow
def test_a_table_without_tesseract_says_so(monkeypatch, tmp_path):
    monkeypatch.setattr(tesseract, "_readers", {})
    monkeypatch.setattr(tesseract, "TESSDATA", (tmp_path,))
    monkeypatch.delenv("TESSDATA_PREFIX", raising=False)
    assert refused(photograph(Scene(deal(DECKS["en"], random.Random(2))), 2)) == NO_READER


@slow
def test_the_benchmark_prints_its_figures_overall_and_by_condition():
    require_tools("tesseract")
    done = subprocess.run([sys.executable, "-m", "pi_table", "bench", "cards", "--pictures", "2"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert re.fullmatch(r"pictures=2  right_pct=[\d.]+  blank_pct=[\d.]+  wrong_pct=[\d.]+  refused=\d+  "
                        r"p50_ms=[\d.]+  p99_ms=[\d.]+  cpu_p50_ms=[\d.]+  cpu_p99_ms=[\d.]+", lines[0])
    assert [line.split()[0] for line in lines[1:]] == ["clean", "turned"]
    assert re.fullmatch(r"clean +right_pct=[\d.]+  blank=\d+  wrong=\d+  refused=\d+", lines[1])
