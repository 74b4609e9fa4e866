"""Reading the cards from a phone's picture, for the spymaster's key page and the staff page: the
picture comes in, the table's reader (``cards.reading.CardReader``, behind ``CardsTable``) gives
the 25 words, and the page shows them in their places for a spymaster to fix and confirm.

A picture from a phone is untrusted input. It is taken only as a JPEG, PNG or WebP by its first
bytes (whatever the request says it is), of at most ``MAX_PICTURE`` bytes (a larger one is
refused by its declared length before a byte is read, or as soon as it passes the bound), within
``PICTURE_S``. It is held in memory for the reading alone: never written, logged, backed up or
sent on; a reader's failure is logged by its class alone, never with its message, which could
quote the picture. Only the words a spymaster confirms are kept, as the game's (``words ...``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Protocol

from aiohttp import web

from ..cards.reading import CARDS, FixedWords, PictureRefused, Reading
from ..engine import InvalidAction, Words, parse_action
from ..engine.errors import Refusal
from ..engine.phrase import N_, Text
from ..ui.i18n import say, translation
from ..ui.words import load_words

log = logging.getLogger("pi_table.web")
MAX_PICTURE = 8 * 1024 * 1024  # a phone's 12-megapixel JPEG is 3-5 MB
PICTURE_S = 60.0  # 8 MB at about 1 Mbit/s, a crowded café's Wi-Fi
SIGNATURES: tuple[tuple[int, bytes], ...] = ((0, b"\xff\xd8\xff"), (0, b"\x89PNG\r\n\x1a\n"), (8, b"WEBP"))
"""Where each taken format's signature begins and what it is: JPEG, PNG, WebP (``RIFF....WEBP``)."""

TOO_BIG = N_("the picture is larger than {most} MB: take it again at a lower resolution")
NOT_A_PICTURE = N_("this is not a JPEG, PNG or WebP picture: take a photo of the cards with the phone's camera")
NO_PICTURE = N_("no picture arrived: take a photo of the cards with the phone's camera")
LATE = N_("the picture did not arrive within {seconds} s: take it again nearer the table")
UNAVAILABLE = N_("reading the cards is not available on this table")
FAILED = N_("the cards could not be read: take the picture again")
NOT_THE_KEY = N_("only the spymasters' page reads the cards")
WORDS_EXPECTED = N_('expected {"words": [THE 25 WORDS, CELL 0 FIRST]}')


class PictureNotTaken(Refusal):
    """A picture the table does not take (too large, not an image, too late): its sentence says
    what was expected."""


class ReadingUnavailable(Refusal):
    """This table has no reader of the cards (its reader cannot be loaded)."""


class CardsTable(Protocol):
    """What the pages take of the table to read the cards: whether it can (``available``), the
    reading of a picture in a language (raising ``PictureRefused`` with the reader's reason, or
    ``ReadingUnavailable``), the words a card of that language may hold (``deck``, for a spymaster
    to complete a word from a few letters), and a confirmation of the 25 words for the game on
    the table (``confirm``: None when the table took them, else why not)."""

    def available(self) -> bool: ...

    def read(self, picture: bytes, lang: str) -> Reading: ...

    def deck(self, lang: str) -> tuple[str, ...]: ...

    def confirm(self, words: tuple[str, ...], lang: str) -> Text | None: ...


class FakeCards:
    """A stand-in table that reads every picture as ``reader`` does (a ``cards.reading.FixedWords``
    of the shipped list's first words by default) and records what it is asked in ``calls``."""

    def __init__(self, calls: list[str], reader: Callable[[bytes, str, tuple[str, ...]], Reading] | None = None) -> None:
        self.calls = calls
        self.reader = reader or FixedWords(load_words("en")[:CARDS])
        self.confirmed: tuple[str, ...] | None = None

    def available(self) -> bool:
        return True

    def read(self, picture: bytes, lang: str) -> Reading:
        self.calls.append(f"read-cards {lang}")
        return self.reader(picture, lang, self.deck(lang))

    def deck(self, lang: str) -> tuple[str, ...]:
        return tuple(load_words(lang))

    def confirm(self, words: tuple[str, ...], lang: str) -> Text | None:
        self.calls.append("words")
        self.confirmed = words
        return None


def picture_format(data: bytes) -> bool:
    """Whether ``data`` begins as a JPEG, PNG or WebP file does (a WebP inside its RIFF header)."""
    if data[8:12] == b"WEBP" and not data.startswith(b"RIFF"):
        return False
    return any(data[at:at + len(signature)] == signature for at, signature in SIGNATURES)


async def picture_of(request: web.Request, within_s: float = PICTURE_S) -> bytes:
    """The request's body, a picture: at most ``MAX_PICTURE`` bytes within ``within_s``, a JPEG,
    PNG or WebP by its first bytes; ``PictureNotTaken`` saying why not."""
    most = MAX_PICTURE // (1024 * 1024)
    if request.content_length is not None and request.content_length > MAX_PICTURE:
        raise PictureNotTaken(TOO_BIG, most=most)
    data = bytearray()
    try:
        async with asyncio.timeout(within_s):
            while chunk := await request.content.read(1 << 16):
                data += chunk
                if len(data) > MAX_PICTURE:
                    raise PictureNotTaken(TOO_BIG, most=most)
    except TimeoutError:
        raise PictureNotTaken(LATE, seconds=f"{within_s:g}") from None
    if not data:
        raise PictureNotTaken(NO_PICTURE)
    if not picture_format(bytes(data[:12])):
        raise PictureNotTaken(NOT_A_PICTURE)
    return bytes(data)


STATUS = {TOO_BIG: 413, NOT_A_PICTURE: 415, NO_PICTURE: 400, LATE: 408}


async def reading(request: web.Request, table: CardsTable, lang: str) -> web.Response:
    """The answer to a picture sent to be read: ``{"ok": true, "words": [25 words or null]}``, or
    ``{"ok": false, "error": WHY}`` said in ``lang`` (the picture refused at the door, the reader's
    reason, or no reader). The picture is dropped once read: nothing here keeps it."""
    try:
        picture = await picture_of(request)
    except PictureNotTaken as e:
        answer = web.json_response({"ok": False, "error": say(e.phrase, lang)}, status=STATUS[e.phrase.template])
        answer.force_close()  # the rest of a refused body is not read
        return answer
    try:
        read = await asyncio.to_thread(table.read, picture, lang)
    except PictureRefused as e:
        return web.json_response({"ok": False, "error": say(e.phrase, lang)}, status=422)
    except ReadingUnavailable as e:
        return web.json_response({"ok": False, "error": say(e.phrase, lang)}, status=503)
    except Exception as e:  # noqa: BLE001 (a reader's fault: its words could quote the picture, so only its class is told)
        log.error("the card reader failed on a picture (%s)", type(e).__name__)
        return web.json_response({"ok": False, "error": translation(lang).gettext(FAILED)}, status=500)
    return web.json_response({"ok": True, "words": list(read.words)})


async def offered(table: CardsTable, lang: str) -> web.Response:
    """Whether the cards can be read here, and the words a card of ``lang`` may hold."""
    available = await asyncio.to_thread(table.available)
    return web.json_response({"available": available, "unavailable": None if available else translation(lang).gettext(UNAVAILABLE),
                              "deck": list(await asyncio.to_thread(table.deck, lang))})


def confirmed_words(body: object) -> tuple[str, ...] | None:
    """The 25 words of a confirmation's body, ``{"words": [...]}``; None when it is not one."""
    words = body.get("words") if isinstance(body, dict) else None
    if not isinstance(words, list) or len(words) != CARDS or not all(isinstance(word, str) for word in words):
        return None
    return tuple(word.strip() for word in words)


def key_holders_action(text: str) -> Words:
    """The action the spymasters' page sent: the cards' words confirmed, its only one
    (``InvalidAction`` for any other)."""
    action = parse_action(text)
    if not isinstance(action, Words):
        raise InvalidAction("the spymasters' page confirms the cards' words alone: 'words W0 ... W24'")
    return action
