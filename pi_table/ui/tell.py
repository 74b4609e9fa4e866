"""What leaves the table for a person who is not at it (the owner's notifications): one way out.

A message is a ``Kind`` (its English template, the catalogue's msgid, and the type of each of its
fields) and the fields' values, checked against those types when it is made (``Message.of``);
``words`` says it in a language, each field by its type: a count grouped as the language groups
digits, a ``Reason`` (a system error) one sentence of a closed list, a ``Name`` as it is, a
``Phrase`` from the catalogue. So a message can carry no code, no system error's own words and no
number the language does not write, and a new one cannot compose its own text: every kind is in
``Kind.every``, which tests/test_notice_words.py walks.
"""

from __future__ import annotations

import errno
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import ClassVar

from ..engine.phrase import N_, Phrase
from .i18n import say, translation

NOTICE_EVENTS = {
    "device": N_("A device fails or a touch chip goes silent"),
    "restart": N_("The table restarted after a crash, or rolled a change back"),
    "update": N_("An update or a security run finished or failed"),
    "backup": N_("A nightly backup failed, or its copy to a USB stick or the network place"),
    "disk": N_("The SD card is nearly full"),
    "night": N_("A game night closed, with its winners"),
}
"""What the owner may choose to be told of (the setting ``notify.events``; each ``Kind`` names
one, or none), each in the words the staff page offers it by: the one list of them
(tests/test_one_list.py)."""

GROUPS = {"en": ",", "it": "."}
"""How each language groups a number's thousands: 12,345 MB, 12.345 MB."""


def number(value: int, lang: str) -> str:
    """A whole number as ``lang`` writes it: its thousands grouped."""
    return f"{value:,}".replace(",", GROUPS.get(lang, ","))


def decimal(value: float, lang: str, places: int | None = None) -> str:
    """A number with a fraction as ``lang`` writes it ("1.5", "1,5"): as short as it goes, or with
    ``places`` digits after the point; the pages' Intl does the same in the browser."""
    written = f"{value:g}" if places is None else f"{value:.{places}f}"
    return written.replace(".", "," if GROUPS.get(lang, ",") == "." else ".")


class Reason(Enum):
    """A system error as the owner is told it: one of a closed list (its own words go to the log)."""

    FULL = N_("the card or the disk it writes to is full")
    NO_SUCH_PLACE = N_("the folder or file it needs does not exist")
    LOGIN_REFUSED = N_("the user name or the password was refused")
    NOT_ALLOWED = N_("the table is not allowed to write there")
    TIMED_OUT = N_("it did not answer in time")
    UNREACHABLE = N_("the other computer cannot be reached on the network")
    DAMAGED = N_("the card or the stick could not be read or written")
    OTHER = N_("another error: the table's log says which")

    @classmethod
    def of(cls, error: BaseException | str) -> Reason:
        """The reason ``error`` (an OSError, or a tool's or a library's words) falls under."""
        code = getattr(error, "errno", None)
        if isinstance(code, int) and code in ERRNOS:
            return ERRNOS[code]
        text = str(error)
        return next((reason for pattern, reason in WORDS if pattern.search(text)), cls.OTHER)


ERRNOS = {errno.ENOSPC: Reason.FULL, errno.EDQUOT: Reason.FULL, errno.ENOENT: Reason.NO_SUCH_PLACE,
          errno.ENOTDIR: Reason.NO_SUCH_PLACE, errno.EACCES: Reason.NOT_ALLOWED, errno.EPERM: Reason.NOT_ALLOWED,
          errno.EROFS: Reason.NOT_ALLOWED, errno.ETIMEDOUT: Reason.TIMED_OUT, errno.ECONNREFUSED: Reason.UNREACHABLE,
          errno.EHOSTUNREACH: Reason.UNREACHABLE, errno.ENETUNREACH: Reason.UNREACHABLE, errno.EIO: Reason.DAMAGED}
WORDS = tuple((re.compile(pattern, re.IGNORECASE), reason) for pattern, reason in (
    (r"no space left|disk full|quota exceeded", Reason.FULL),
    (r"unable to authenticate|authentication failed|permission denied \(publickey|login incorrect|\b401\b"
     r"|unauthori[sz]ed", Reason.LOGIN_REFUSED),
    (r"no such file|not found|doesn't exist|does not exist|\b404\b", Reason.NO_SUCH_PLACE),
    (r"permission denied|access denied|forbidden|read-only file system|\b403\b", Reason.NOT_ALLOWED),
    (r"timed out|timeout|deadline exceeded", Reason.TIMED_OUT),
    (r"connection refused|no route to host|network is unreachable|no such host|name or service not known"
     r"|temporary failure in name resolution|connection reset", Reason.UNREACHABLE),
    (r"input/output error|i/o error|mount failed|wrong fs type|bad superblock", Reason.DAMAGED),
))
"""A tool's words (rclone's, sftp's, apt's, mount's) and the reason each says, the first found."""


def because(error: Phrase | BaseException | str) -> Phrase:
    """Why something failed, as a sentence of the catalogue: a sentence as it is (``words`` says
    its own system words as their reason), else the reason a system error falls under."""
    carried = getattr(error, "phrase", None)  # a refusal's sentence, or a damaged backup's
    if isinstance(carried, Phrase):
        return carried
    return error if isinstance(error, Phrase) else Phrase.of(Reason.of(error).value)


@dataclass(frozen=True, slots=True)
class Name:
    """A proper name shown as it is in every language: a table's, a night's, a team's, a version."""

    text: str


@dataclass(frozen=True, slots=True)
class Said:
    """A sentence the table said from its catalogue in each of its languages when it happened,
    as a note keeps it (a rollback's why): shown in the language asked, "?" in one it lacks."""

    texts: tuple[tuple[str, str], ...]

    @classmethod
    def of(cls, texts: Mapping[object, object]) -> Said:
        return cls(tuple((str(lang), str(text)[:300]) for lang, text in texts.items() if isinstance(text, str)))


SAYS = (int, Name, Reason, Phrase, Said, tuple)
"""What a field may hold: a count, a name, a reason, a sentence of the catalogue (now or as it was
said), a list of names."""


@dataclass(frozen=True)
class Kind:
    """One message the table sends: its English template and each field's type (one of ``SAYS``;
    ``tuple`` is a list of ``Name``)."""

    event: str  # what the owner chooses it under (``NOTICE_EVENTS``), "" for none
    template: str
    fields: tuple[tuple[str, type], ...] = ()

    every: ClassVar[list[Kind]] = []

    def __post_init__(self) -> None:
        if any(kind not in SAYS for _, kind in self.fields):
            raise TypeError(f"{self.template!r}: a field is one of {SAYS}")  # a programming error: a kind's own
        Kind.every.append(self)

    @classmethod
    def of(cls, event: str, template: str, /, **fields: type) -> Kind:
        return cls(event, template, tuple(fields.items()))


@dataclass(frozen=True)
class Message:
    """A kind of message and its fields' values, each of its declared type."""

    kind: Kind
    fields: tuple[tuple[str, object], ...] = ()

    @classmethod
    def of(cls, kind: Kind, /, **fields: object) -> Message:
        types = dict(kind.fields)
        if set(fields) != set(types):
            raise TypeError(f"{kind.template!r} takes {sorted(types)}, not {sorted(fields)}")  # a programming error
        for name, value in fields.items():
            wanted = types[name]
            if not isinstance(value, wanted) or isinstance(value, bool) \
                    or (wanted is tuple and not all(isinstance(item, Name) for item in value)):  # type: ignore[attr-defined]
                raise TypeError(  # a programming error: the code composing it gave a field of another type
                    f"{kind.template!r}: {name} is a {wanted.__name__}, not {value!r}")
        return cls(kind, tuple(fields.items()))

    def __str__(self) -> str:
        return words(self, "en")


def words(message: Message, lang: str) -> str:
    """``message`` as it is sent in ``lang``: the one way a message becomes text."""
    template = translation(lang).gettext(message.kind.template)
    return template.format(**{name: _field(value, lang) for name, value in message.fields})


def _field(value: object, lang: str) -> str:
    if isinstance(value, int):
        return number(value, lang)
    if isinstance(value, Name):
        return value.text
    if isinstance(value, Said):
        return dict(value.texts).get(lang, "?")
    if isinstance(value, Reason):
        return translation(lang).gettext(value.value)
    if isinstance(value, tuple):
        return ", ".join(_field(item, lang) for item in value)
    assert isinstance(value, Phrase)  # Message.of let nothing else in
    return say(_reasoned(value), lang)


def _reasoned(phrase: Phrase) -> Phrase:
    """``phrase`` with a system's own words (a field named ``error``, as the house names them)
    said as their ``Reason``, at any depth. Its numbers stay as they are: a sentence's own field
    may be a port or an exit code, which no language groups."""
    def field(name: str, value: object) -> object:
        if name == "error" and isinstance(value, str | BaseException):
            return Phrase.of(Reason.of(value).value)
        return _reasoned(value) if isinstance(value, Phrase) else value

    return Phrase(phrase.template, tuple((name, field(name, value)) for name, value in phrase.fields), phrase.plural,
                  phrase.count)
