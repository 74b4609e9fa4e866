"""The card reader: Tesseract 5 (through tesserocr, in this process) reads each card's label once
``grid`` has found the cards, and what it reads is completed from the deck.

The picture is untrusted bytes from a phone: its size in bytes and in pixels is bounded before a
pixel is decoded (a small file can hold a huge picture), a JPEG is decoded already shrunk (its
own scaled decoding), and whatever the bytes are, the reader answers with a ``Reading`` or a
``PictureRefused`` that says why and what to do. The picture is never kept.
"""

from __future__ import annotations

import io
import os
import threading
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageOps

from ..engine.phrase import N_
from . import card
from .grid import Quad, find
from .reading import CARDS, PictureRefused, Reading

MAX_BYTES = 24 * 1024 * 1024  # a phone's largest JPEG is some 15 MB
MAX_PIXELS = 64_000_000  # a 48-megapixel phone's picture, and room
MAX_WHOLE_PIXELS = 24_000_000  # what a picture in a format decoded at full size (PNG, WebP) may hold
FORMATS = ("JPEG", "PNG", "WEBP")
READ_SIDE = 2000  # the picture's longer side while the cards are read: a card's label some 30 px high
FIND_SIDE = 640  # and while the cards are found
DARK = 70  # the lightest of the picture (its 98th percentile grey) below this: nothing to read
PX_PER_MM = 6  # a card's label is read at this resolution, its capitals some 30 px high
TESSDATA = (Path("/usr/share/tesseract-ocr/5/tessdata"), Path("/usr/share/tessdata"),
            Path("/usr/share/tesseract-ocr/4.00/tessdata"))
LANGUAGES = {"en": "eng", "it": "ita"}

NOT_A_PICTURE = N_("this is not a picture the table can read: take a photo (JPEG or PNG) of the 25 cards")
TOO_BIG = N_("the picture is too big: take it with the phone's own camera, at its usual size")
TOO_DARK = N_("the picture is too dark: turn a light on or take the cards out of the shadow, and take it again")
CUT_OFF = N_("the grid is cut off: step back until all 25 cards are in the picture, with some table around them")
TOO_SLANTED = N_("the picture is too slanted: hold the phone above the middle of the grid, looking straight down")
NO_GRID = N_("the 25 cards could not be found: lay them out 5 by 5 on a darker surface and take the picture from above")
NO_READER = N_("this table cannot read cards: its text reader (Tesseract) is not installed; run the installer again")

_lock = threading.Lock()  # one Tesseract per language, used by one reading at a time
_readers: dict[str, Any] = {}


def read_cards(picture: bytes, lang: str, deck: Sequence[str]) -> Reading:
    """The 25 words of the picture's cards in place order, each snapped to ``deck`` (None where
    nothing in it is close); ``PictureRefused`` for a picture that cannot be read."""
    grey = decoded(picture)
    small = grey.copy()
    small.thumbnail((FIND_SIDE, FIND_SIDE), Image.Resampling.BOX)
    found = find(np.asarray(small), grey.width / small.width)
    if found.cut_off:
        raise PictureRefused(CUT_OFF)
    if found.slanted:
        raise PictureRefused(TOO_SLANTED)
    if found.missing or len(found.quads) != CARDS:
        raise PictureRefused(NO_GRID)
    words = Deckmatch(deck)
    with _lock:
        reader = _reader(lang)
        return Reading(tuple(_read(reader, grey, quad, words) for quad in found.quads))


def decoded(picture: bytes) -> Image.Image:
    """The picture in grey, turned as the phone said it was held, its longer side at most
    ``READ_SIDE``, its contrast stretched; refused when it is no picture, too big or too dark."""
    if len(picture) > MAX_BYTES:
        raise PictureRefused(TOO_BIG)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(picture), formats=FORMATS)
            pixels = image.width * image.height
            if pixels > MAX_PIXELS or (image.format != "JPEG" and pixels > MAX_WHOLE_PIXELS):
                raise PictureRefused(TOO_BIG)
            image.draft("L", (READ_SIDE, READ_SIDE))  # a JPEG decoded at 1/2, 1/4 or 1/8 of its size
            grey = ImageOps.exif_transpose(image).convert("L")
    except PictureRefused:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as error:  # Pillow's own bound, met first
        raise PictureRefused(TOO_BIG) from error
    except Exception as error:  # Pillow's errors on bad bytes are many kinds (OSError, SyntaxError, ...)
        raise PictureRefused(NOT_A_PICTURE) from error
    grey.thumbnail((READ_SIDE, READ_SIDE), Image.Resampling.BOX)
    if np.percentile(np.asarray(grey), 98) < DARK:
        raise PictureRefused(TOO_DARK)
    return ImageOps.autocontrast(grey, cutoff=1)


def _tessdata(language: str) -> Path:
    """Where Tesseract's trained data for ``language`` is: TESSDATA_PREFIX, or Debian's folder."""
    given = os.environ.get("TESSDATA_PREFIX")
    for folder in ((Path(given),) if given else ()) + TESSDATA:
        if (folder / f"{language}.traineddata").is_file():
            return folder
    raise PictureRefused(NO_READER)


def _reader(lang: str) -> Any:
    """The language's Tesseract, made once: a line of capitals at a time."""
    language = LANGUAGES.get(lang, "eng")
    if language not in _readers:
        try:
            import tesserocr
        except ImportError as error:
            raise PictureRefused(NO_READER) from error
        api = tesserocr.PyTessBaseAPI(path=f"{_tessdata(language)}/", lang=language, psm=tesserocr.PSM.SINGLE_LINE,
                                      oem=tesserocr.OEM.LSTM_ONLY)
        api.SetVariable("tessedit_char_whitelist", "ABCDEFGHIJKLMNOPQRSTUVWXYZ'")
        _readers[language] = api
    return _readers[language]


def _crop(grey: Image.Image, quad: Quad, box_mm: tuple[float, float, float, float]) -> Image.Image:
    """A box of the card (in its millimetres, the card seen with ``quad``'s first corner top-left),
    flattened at ``PX_PER_MM``, with a white border as Tesseract likes a line."""
    tl, tr, br, bl = quad

    def at(x_mm: float, y_mm: float) -> tuple[float, float]:
        u, v = x_mm / card.WIDTH_MM, y_mm / card.HEIGHT_MM
        top_x, top_y = tl[0] + (tr[0] - tl[0]) * u, tl[1] + (tr[1] - tl[1]) * u
        bottom_x, bottom_y = bl[0] + (br[0] - bl[0]) * u, bl[1] + (br[1] - bl[1]) * u
        return top_x + (bottom_x - top_x) * v, top_y + (bottom_y - top_y) * v

    left, top, right, bottom = _with_margin(box_mm, 1.5)
    corners = (at(left, top), at(left, bottom), at(right, bottom), at(right, top))  # as Image.Transform.QUAD lists them
    size = (round((right - left) * PX_PER_MM), round((bottom - top) * PX_PER_MM))
    data = tuple(v for point in corners for v in point)
    flat = grey.transform(size, Image.Transform.QUAD, data, resample=Image.Resampling.BILINEAR)
    return ImageOps.expand(ImageOps.autocontrast(flat, cutoff=2), border=12, fill=255)


def _read(reader: Any, grey: Image.Image, quad: Quad, words: Deckmatch) -> str | None:
    """The card's word: its label's, or, where that is no word of the deck exactly, the closer of
    its label's and its upside-down word's (read with the card turned round)."""
    reader.SetImage(_crop(grey, quad, card.LABEL_MM))
    best = words.nearest(reader.GetUTF8Text())
    if best is not None and best[1] == 0:
        return best[0]
    tl, tr, br, bl = quad
    left, top, right, bottom = card.TOP_WORD_MM
    reader.SetImage(_crop(grey, (br, bl, tl, tr), (card.WIDTH_MM - right, card.HEIGHT_MM - bottom,
                                                   card.WIDTH_MM - left, card.HEIGHT_MM - top)))
    other = words.nearest(reader.GetUTF8Text())
    if other is not None and (best is None or other[1] < best[1]):
        best = other
    return None if best is None else best[0]


def _with_margin(box: tuple[float, float, float, float], mm: float) -> tuple[float, float, float, float]:
    left, top, right, bottom = box
    return max(0.0, left - mm), max(0.0, top - mm), min(card.WIDTH_MM, right + mm), min(card.HEIGHT_MM, bottom + mm)


class Deckmatch:
    """The deck's words by their letters, to complete what Tesseract read: the word at the least
    edit distance, if it is close (a third of its letters, at least one) and the only one so close."""

    def __init__(self, deck: Sequence[str]) -> None:
        self.letters = {"".join(ch for ch in word.upper() if ch.isalpha()): word for word in deck}

    def nearest(self, text: str) -> tuple[str, int] | None:
        read = "".join(ch for ch in text.upper() if ch.isalpha())
        if not read:
            return None
        if read in self.letters:
            return self.letters[read], 0
        best: list[tuple[int, str]] = []
        for letters, word in self.letters.items():
            allowed = max(1, len(letters) // 3)
            if abs(len(letters) - len(read)) > allowed:
                continue
            distance = edit_distance(read, letters, allowed)
            if distance <= allowed:
                best.append((distance, word))
        best.sort()
        if not best or (len(best) > 1 and best[1][0] == best[0][0]):
            return None
        return best[0][1], best[0][0]


def edit_distance(a: str, b: str, limit: int) -> int:
    """Levenshtein's distance between ``a`` and ``b``, or ``limit + 1`` once it must be more."""
    previous = list(range(len(b) + 1))
    for i, ch in enumerate(a, 1):
        current = [i]
        for j, other in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ch != other)))
        if min(current) > limit:
            return limit + 1
        previous = current
    return previous[-1]
