"""Teams' names: public, chosen on a phone or the staff page, checked against the café's list of
words it does not want shown (``[night] blocked_words``).

A team is a name and, if its players like, their first names or nicknames: no account, no
e-mail, nothing the café did not ask for. A team of a league carries its league code too
(``code``): a few letters and digits the league's roster gives it, by which the league knows it
across nights and cafés whatever name it types (issue 64). Everything here is shown on the spectators' TV and
the fleet's dashboard, so a name is checked before it is kept, never after.

A blocked word is matched as a whole word of the name, its case and accents aside ("Ölf" is
"olf"): a blocklist of short words must not refuse every name that contains them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..engine.errors import Refusal
from ..engine.phrase import N_, Phrase
from ..files import NotAFile, TooBig, read_file

MAX_NAME = 24  # characters: a team's name on a table's screen line, "next: NAME vs NAME at table 2"
MAX_NICKNAMES = 8
MAX_CODE = 8  # a team's league code's letters and digits: short enough to type on a phone
CODE = re.compile(rf"[A-Z0-9]{{3,{MAX_CODE}}}")  # a team's league code, as it is kept
MAX_BLOCKLIST_BYTES = 256 * 1024  # a few thousand words; more is a wrong file
WORD = re.compile(r"[^\W_]+")


class NameRefused(Refusal):
    """A team's name or nickname the night does not keep; the sentence never repeats a blocked word."""


class BlocklistError(Refusal):
    """The blocked words' file cannot be read; the sentence names the file and the line, never what it holds."""


@dataclass(frozen=True, slots=True)
class Team:
    """A team of the night: its name (unique in the night, its case aside) and its players' nicknames."""

    name: str
    nicknames: tuple[str, ...] = ()
    code: str = ""  # its league code (``code``), if it gave one

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "nicknames": list(self.nicknames), **({"code": self.code} if self.code else {})}


def folded(text: str) -> str:
    """``text`` as names are compared: case and accents aside."""
    import unicodedata  # here: a table without blocked words starts without it

    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def tidy(text: str, most: int, what: str) -> str:
    """A name with its spaces tidied; NameRefused when empty, too long or holding control characters.
    ``what`` is a msgid: what the name names, said in the reader's language."""
    import unicodedata

    if any(unicodedata.category(c).startswith("C") for c in text):
        raise NameRefused("a {what} holds letters, digits, spaces and punctuation only", what=Phrase.of(what))
    name = " ".join(text.split())
    if not name:
        raise NameRefused("a {what} cannot be empty", what=Phrase.of(what))
    if len(name) > most:
        raise NameRefused("a {what} has at most {most} characters, not {length}", what=Phrase.of(what), most=most,
                          length=len(name))
    return name


def code(text: str) -> str:
    """A team's league code as typed (its case, spaces and dashes aside) in its kind: 3 to 8
    letters A-Z or digits; NameRefused saying so."""
    kept = "".join(c for c in text if c not in " -").upper()
    if not CODE.fullmatch(kept):
        raise NameRefused("a team's league code is 3 to 8 letters or digits, as the league gave it")
    return kept


class Blocklist:
    """The café's words not to show, folded (``folded``)."""

    def __init__(self, words: Iterable[str] = ()) -> None:
        self.words = frozenset(folded(word) for word in words)

    def allows(self, text: str) -> bool:
        return not any(word in self.words for word in WORD.findall(folded(text)))

    @classmethod
    def read(cls, path: str) -> Blocklist:
        """The words of the file at ``path``: UTF-8, one word a line, ``#`` starting a comment."""
        try:
            text = read_file(path, MAX_BLOCKLIST_BYTES).decode("utf-8")
        except NotAFile:
            raise BlocklistError("{path}: not a file (a folder, a device or a pipe)", path=path) from None
        except TooBig as e:
            raise BlocklistError("{path}: {size} bytes is too long for a list of words (at most {most})", path=path,
                                 size=e.size, most=MAX_BLOCKLIST_BYTES) from None
        except UnicodeDecodeError as e:
            line = e.object[:e.start].count(b"\n") + 1
            raise BlocklistError("{path}: line {line} is not UTF-8 text; the file is UTF-8, one word a line",
                                 path=path, line=line) from None
        except OSError as e:
            raise BlocklistError("{path}: cannot be read ({error})", path=path, error=e.strerror or str(e)) from None
        words = []
        for number, row in enumerate(text.splitlines(), start=1):
            word = row.split("#", 1)[0].strip()
            if not word:
                continue
            if len(WORD.findall(word)) != 1 or len(word.split()) != 1:
                raise BlocklistError("{path}: line {line}: one word a line is expected", path=path, line=number)
            words.append(word)
        return cls(words)


def team(name: str, nicknames: Iterable[str], taken: Iterable[str], blocked: Blocklist, league_code: str = "") -> Team:
    """A new team, its name and nicknames tidied and checked, its ``league_code`` (if typed) read
    as a code; NameRefused saying why not."""
    name = tidy(name, MAX_NAME, N_("team name"))
    nicks = tuple(dict.fromkeys(tidy(nick, MAX_NAME, N_("nickname")) for nick in nicknames if nick.strip()))
    if len(nicks) > MAX_NICKNAMES:
        raise NameRefused("a team has at most {most} nicknames", most=MAX_NICKNAMES)
    if not all(blocked.allows(text) for text in (name, *nicks)):
        raise NameRefused("that name is not shown here: choose another")
    if folded(name) in {folded(other) for other in taken}:
        raise NameRefused("a team of that name has joined already: choose another")
    return Team(name, nicks, code(league_code) if league_code.strip() else "")
