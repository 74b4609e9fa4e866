"""A game night's exports (a workbook, CSVs, FIDE's TRF), its pages to print (the standings, a
round's pairing slips) and the teams' own page, on which a team names itself from a phone: what
the staff page's night section (``web.sections.night``) serves. docs/cafe/night.md, "Exports",
is the contract.
"""

from __future__ import annotations

import html
import time
from collections.abc import Callable

from ..engine.phrase import N_
from ..files import csv_text
from ..night.crosstable import CrossedRound, cross_table, crossed
from ..night.events import VOID, NightRefused
from ..night.pairing import Round
from ..night.scoring import BYE_POINTS, FORFEIT, PLAYED, TIEBREAKS, columns_of, tiebreak_said
from ..night.standings import Result, Standing
from ..night.state import Night
from ..ui.i18n import translation
from ..ui.tell import decimal
from .document import document

PAGE_TEXTS = (
    N_("Join the game night"),
    N_("Your team's name"),
    N_("Your first names or nicknames, if you like (separated by commas)"),
    N_("Your team's league code, if the league gave you one"),
    N_("Join"),
    N_("Your team {name} is on the list: the staff confirm it, then watch the screen for your table."),
    N_("Names are shown to everyone in the room: nothing secret."),
)


SHOWN = ("margin", "rating", "buchholz")
"""The tie-breaks' columns every standings table shows whatever the night's order: the exports',
the printed page's and the fleet's dashboard's."""


def tiebreak_columns(tiebreak: str) -> dict[str, str]:
    """The columns a night's tie-breaks add to its standings beyond ``SHOWN``, in its order, each
    with the words that head it (untranslated): the exports, the printed page and the fleet's
    dashboard show them."""
    return columns_of(tiebreak, SHOWN)


def tiebreak_words(tiebreak: str, gettext: Callable[[str], str]) -> str:
    """The night's tie-breaks, in its order, in words."""
    return ", ".join(gettext(words) for words in tiebreak_said(tiebreak))


def tiebreaks_shown(tiebreak: str) -> dict[str, object]:
    """What a page shows of a night's tie-breaks, from the one list (``scoring.TIEBREAKS``): its
    words in its order and the columns they add, each its heading and its field (the words as
    msgids, which the page's ``t()`` says): the spectators' page and the staff page draw them."""
    return {"words": list(tiebreak_said(tiebreak)),
            "columns": [[words, field] for field, words in columns_of(tiebreak).items()]}


def tiebreak_choices() -> list[list[str]]:
    """The tie-breaks a director may order, each its name and its words (a msgid): the staff page offers them."""
    return [[name, tiebreak.words] for name, tiebreak in TIEBREAKS.items()]


def placed(line: Standing) -> str:
    """A line's place as the pages show it: ``3=`` when teams the tie-breaks leave level share it."""
    return f"{line.place}=" if line.shared else f"{line.place}."


TABLES = ("standings", "rounds", "games")
"""The night's tables, each a sheet of its workbook and a CSV of its own."""


def night_tables(night: Night) -> dict[str, list[tuple[object, ...]]]:
    """The night's tables, each its header then its rows (docs/cafe/night.md, "Exports"): the
    standings, with a column for each tie-break the director chose beyond those always there
    (``tiebreak_columns``, in the night's order), after them so a script's columns stay where they were; the rounds, a row for each pair and each team
    sitting out, with the result as it counts; the games recorded, one a row (``Night.recorded``), with the
    words guessed where a spymaster confirmed the cards' words."""
    games: list[tuple[object, ...]] = [("round", "table", "game", "id", "red", "blue", "winner", "termination", "margin",
                                        "score", "guessed")]
    for game in night.recorded():
        teams = (*game.teams, "")[:2]
        games.append((game.round or "", game.table, game.game, game.id, *teams, game.winner or "",
                      game.termination.value, "" if game.margin is None else game.margin,
                      "" if game.score is None else game.score, " ".join(game.guessed)))
    rounds: list[tuple[object, ...]] = [("round", "table", "red", "blue", "result", "winner")]
    slots = night.slots()
    for made in night.rounds:
        for pair in made.pairs:
            counted = slots.get((made.number, pair.table))
            result = (night.staff_result(made.number, pair.table) or "") if counted is None else \
                counted.how
            rounds.append((made.number, pair.table, pair.red, pair.blue, result,
                           "" if counted is None else counted.winner or ""))
        rounds.extend((made.number, "", name, "", "bye", "") for name in made.resting)
    more = tuple(tiebreak_columns(night.tiebreak))
    standings: list[tuple[object, ...]] = [("place", "team", "played", "won", "lost", "drawn", "byes", "points",
                                            "margin", "rating", "buchholz", "withdrawn", *more)]
    standings.extend((line.place, line.team, line.played, line.won, line.lost, line.drawn, line.byes, line.points,
                      line.margin, line.rating(), line.buchholz, "yes" if line.withdrawn else "",
                      *(line.to_json()[field] for field in more))
                     for line in night.standings())
    return {"standings": standings, "rounds": rounds, "games": games}


def night_csv(night: Night) -> str:
    """The night in one CSV, in three blocks separated by an empty row (the games, the rounds,
    the standings), then the tie-break and the points of a bye: the export scripts have read
    since issue 38. A spreadsheet opens ``night_xlsx`` or ``table_csv`` cleanly."""
    tables = night_tables(night)
    rows = [*tables["games"], (), *tables["rounds"], (), *tables["standings"],
            ("tie-break", night.tiebreak), ("bye points", night.bye)]
    return csv_text(rows)


CSV_SEPARATORS = {"it": (";", ",")}
"""A language's CSV fields and decimals, as its spreadsheets read them: English's are ``,`` and ``.``."""


def table_csv(night: Night, table: str, lang: str) -> str:
    """One of the night's tables (``TABLES``) as a CSV of its own for a spreadsheet in ``lang``:
    a UTF-8 BOM first (so the accents are read), its language's separators; the standings' ends
    with the night's tie-breaks, in order, after an empty row."""
    delimiter, decimal = CSV_SEPARATORS.get(lang, (",", "."))
    rows = night_tables(night)[table]
    if table == "standings":  # it names the order its places come from, as the one-file CSV and the print do
        rows = [*rows, (), ("tie-break", night.tiebreak)]
    return "\ufeff" + csv_text(rows, delimiter, decimal)


def night_xlsx(night: Night) -> bytes:
    """The night as a workbook (``workbook``): a sheet for each table (``night_tables``) and one
    of the night's settings."""
    return workbook({**night_tables(night), "night": [
        ("name", night.name), ("opened", time.strftime("%Y-%m-%d %H:%M", time.gmtime(night.opened))),
        ("tie-break", night.tiebreak), ("bye points", night.bye), ("late points", night.late),
        ("rounds", len(night.rounds))]})


def workbook(sheets: dict[str, list[tuple[object, ...]]]) -> bytes:
    """An xlsx workbook (openpyxl) of ``sheets``, each its title (as a spreadsheet takes one) and
    its rows; numbers are numbers, and a text is never a formula (a guest types a team's name)."""
    import io

    from openpyxl import Workbook  # an export's: loaded when a night is exported, not at the table's start

    made = Workbook()
    for n, (title, rows) in enumerate(sheets.items()):
        sheet = made.active if n == 0 else made.create_sheet(title)
        assert sheet is not None  # a new workbook has its first sheet
        sheet.title = title
        for row in rows:
            sheet.append(list(row))
        for line in sheet.iter_rows():
            for cell in line:
                if isinstance(cell.value, str):
                    cell.data_type = "s"  # openpyxl takes a text that begins with '=' for a formula
    out = io.BytesIO()
    made.save(out)
    return out.getvalue()


def night_trf(night: Night) -> str:
    """The night as FIDE's Tournament Report File (TRF-16), which Swiss-Manager, JaVaFo and
    bbpPairings read: each team a player, numbered in the order it joined; each round its
    opponent, its colour (red is white: it plays first) and its result (``1``, ``0``, ``=`` both
    lost, ``+``/``-`` a forfeit, ``-`` both in a double loss, blank while played). A round without
    a game is TRF-16's own bye: sat out, the pairing-allocated bye (``U``) each time, whatever it
    scores (a bye other than a win's points on bbpPairings's ``BBU`` line), as the standings count
    it among the rounds no team chose to miss (issue 76, item 9: ``H`` or ``Z`` read as a bye asked
    for, which FIDE's tie-breaks cut first); missed by joining late, ``H`` or ``Z`` as the night
    says, asked for, as the director chose for that bye; away (withdrawn), ``Z``; a void pair, the
    pair with ``-`` each (``night.crosstable.Crossed``: TRF-16 has no code of its own). A name is
    written in ASCII, so its columns are the same counted in bytes or in characters."""
    start = {name: n for n, name in enumerate(night.teams, start=1)}
    place = {line.team: line.place for line in night.standings()}
    points = {line.team: line.points for line in night.standings()}
    slots = night.slots()
    lines = [f"012 {night.name}", f"042 {time.strftime('%Y/%m/%d', time.gmtime(night.opened))}",
             f"062 {len(start)}", "092 Swiss (pi-table game night)", f"XXR {len(night.rounds)}",
             *([] if night.bye == BYE_POINTS else [f"BBU {night.bye:4.1f}"])]  # bbpPairings's: what a U scores
    for name, number in start.items():
        rounds = [_trf_round(night, slots, made, name, start) for made in night.rounds]
        lines.append(f"001 {number:>4}{'':6}{_trf_name(name)}{'':33}{points[name]:4.1f} {place[name]:>4}"
                     + "".join(rounds))
    return "\r\n".join(lines) + "\r\n"


def _trf_name(name: str) -> str:
    """A team's name in the player's 33 columns, in ASCII (accents taken off, any other letter
    ``?``): a reader that counts columns in bytes (a file read as the machine's code page) and one
    that counts characters (bbpPairings, which decodes UTF-8) find every column after it in the
    same place. The team's number says which it is; the CSV keeps the name as it was typed."""
    import unicodedata

    plain = "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c))
    return plain.encode("ascii", "replace").decode()[:33].ljust(33)


def _trf_round(night: Night, slots: dict[tuple[int, str], Result], made: Round, name: str, start: dict[str, int]) -> str:
    """A team's round in TRF-16: ``  OOOO C R`` (columns 92-95, 97 and 99 for the first round)."""
    each = crossed(night, slots, made, name)
    if each.opponent is None:
        return f"  0000 - {each.code}"
    return f"  {start[each.opponent]:>4} {'w' if each.red else 'b'} {each.code}"


STYLE = "/staff/static/night.css"
"""The style of the teams' page and of the page to print: a file of the staff page's own, as the
pages' Content-Security-Policy takes no style written in the page."""


def _style(origin: str = "") -> str:
    """The night's pages' style, from ``origin`` for a page saved away from the table."""
    return f'<link rel="stylesheet" href="{html.escape(origin)}{STYLE}">\n'


def printable(night: Night, lang: str, origin: str = "") -> str:
    """The night's standings and rounds as a page to print (no script; its style from ``origin``,
    the table the staff page is on)."""
    gettext = translation(lang).gettext
    e = html.escape
    tiebreak = gettext("Tie-break: {tiebreak}").format(tiebreak=tiebreak_words(night.tiebreak, gettext))
    more = tiebreak_columns(night.tiebreak)
    words = ("Team", "played", "won", "lost", "byes", "points", "margin", "rating", "Buchholz", *more.values())
    heads = "".join(f"<th>{e(gettext(word))}</th>" for word in words)
    lines = night.standings()
    rows = "".join(f"<tr><td>{placed(s)} {e(s.team)}{e(' (' + gettext('withdrawn') + ')') if s.withdrawn else ''}</td>"
                   f"<td>{s.played}</td><td>{s.won}</td><td>{s.lost}</td><td>{s.byes}</td>"
                   f"<td>{decimal(s.points, lang)}</td><td>{s.margin}</td><td>{decimal(s.rating(1), lang, 1)}</td>"
                   f"<td>{decimal(s.buchholz, lang)}</td>"
                   + "".join(f"<td>{decimal(getattr(s, field), lang)}</td>" for field in more) + "</tr>"
                   for s in lines)
    slots = night.slots()
    rounds = "".join(f"<h2>{e(gettext('Round {number}').format(number=made.number))}</h2><ul>" + "".join(
        f"<li>{e(gettext('table'))} {e(pair.table)}: {e(pair.red)} {e(gettext('(red, plays first)'))} – {e(pair.blue)}"
        f": {e(said_result(night, slots, made.number, pair.table, gettext))}</li>" for pair in made.pairs)
        + (f"<li>{e(gettext('sitting out'))}: {e(', '.join(made.resting))}</li>" if made.resting else "") + "</ul>"
        for made in night.rounds)
    return document(lang, night.name,
                    f'<main class="printed"><h1>{e(night.name)}</h1><h2>{e(gettext("Standings"))}</h2>'
                    f'<p>{e(tiebreak)}</p><div class="scroll" tabindex="0" role="region" aria-label="{e(gettext("Standings"))}">'
                    f"<table><tr>{heads}</tr>{rows}</table></div>{_crossed(night, lines, lang)}{rounds}</main>\n",
                    _style(origin))


def _crossed(night: Night, lines: list[Standing], lang: str) -> str:
    """The printed cross-table: the standings' ``lines`` as rows, numbered, each round's opponent's
    row and the points scored (``cell``), and what its marks say."""
    if not night.rounds:
        return ""
    gettext = translation(lang).gettext
    e = html.escape
    title = gettext("Cross-table")
    heads = "".join(f"<th>{e(gettext('Round {number}').format(number=made.number))}</th>" for made in night.rounds)
    rows = "".join(f"<tr><td>{n}. {e(line['team'])}</td>" + "".join(f"<td>{e(cell(each, lang))}</td>" for each in line["rounds"])
                   + "</tr>"
                   for n, line in enumerate(cross_table(night, [s.team for s in lines]), start=1))
    return (f'<h2>{e(title)}</h2><p>{e(gettext(CROSS_KEY))}</p><div class="scroll" tabindex="0" role="region" '
            f'aria-label="{e(title)}"><table><tr><th>{e(gettext("Team"))}</th>{heads}</tr>{rows}</table></div>')


CROSS_KEY = N_("Each round: the opponent's row, then the points scored; + or − a forfeit won or lost (− both, a "
               "double loss); – no game (a bye, a round missed, a void pair); … still played.")


def cell(each: CrossedRound, lang: str) -> str:
    """A cross-table's round as the printed page writes it, its number in ``lang`` (the TV's script
    writes it the same)."""
    scored = each["scored"]
    said = "…" if scored is None else ("+" if scored else "−") if each["forfeit"] else decimal(scored, lang)
    return f"{'–' if each['opponent'] is None else each['opponent']} {said}"


def slips(night: Night, number: int, lang: str, origin: str = "") -> str:
    """Round ``number``'s pairing slips, one a table to cut and lay on it: the round, the table,
    the red team (it plays first), the blue team and a line for the winner; NightRefused for a
    round not confirmed."""
    if not 0 < number <= len(night.rounds):
        raise NightRefused("round {number} is not confirmed", number=number)
    gettext = translation(lang).gettext
    e = html.escape
    made = night.rounds[number - 1]
    heading = gettext("Round {number}").format(number=number)
    cut = "".join(
        f'<section class="slip"><h2>{e(heading)} · {e(gettext("Table {table}").format(table=pair.table))}</h2>'
        f"<p>{e(pair.red)} {e(gettext('(red, plays first)'))}</p><p>{e(pair.blue)} {e(gettext('(blue)'))}</p>"
        f"<p>{e(gettext('Winner:'))} ______________________</p></section>" for pair in made.pairs)
    resting = f"<p>{e(gettext('sitting out'))}: {e(', '.join(made.resting))}</p>" if made.resting else ""
    return document(lang, f"{night.name} · {heading}",
                    f'<main class="printed"><h1>{e(night.name)} · {e(heading)}</h1>{cut}{resting}</main>\n', _style(origin))


def said_result(night: Night, slots: dict[tuple[int, str], Result], number: int, table: str,
                gettext: Callable[[str], str]) -> str:
    """Round ``number``'s result at ``table`` as it counts, in words: a win, a forfeit, both lost,
    a double loss, void, or still played."""
    counted = slots.get((number, table))
    if counted is None:
        void = night.staff_result(number, table) == VOID
        return gettext("void (counts for nothing)" if void else "still played")
    if counted.how == PLAYED:
        return gettext("both lost") if counted.winner is None else gettext("{team} won").format(team=counted.winner)
    if counted.how == FORFEIT:
        return gettext("{team} won by forfeit").format(team=counted.winner)
    return gettext("double loss (both lose)")


def team_page(lang: str, error: str | None = None, done: str | None = None) -> str:
    """The phones' page where a team names itself: a plain form, no script."""
    gettext = translation(lang).gettext
    e = html.escape
    said = "" if error is None and done is None else f'<p class="said">{e(error or done or "")}</p>'
    heading, name = gettext("Join the game night"), e(gettext("Your team's name"))
    nicknames = e(gettext("Your first names or nicknames, if you like (separated by commas)"))
    code = e(gettext("Your team's league code, if the league gave you one"))
    join, public = e(gettext("Join")), e(gettext("Names are shown to everyone in the room: nothing secret."))
    return document(lang, heading, f"<main><h1>{e(heading)}</h1>{said}"
                    '<form method="post" action="/night/join">'
                    f'<label>{name}<input name="team" maxlength="24" required></label>'
                    f'<label>{nicknames}<input name="nicknames" maxlength="200"></label>'
                    f'<label>{code}<input name="code" maxlength="12" autocapitalize="characters"></label>'
                    f'<button type="submit">{join}</button></form><p>{public}</p></main>\n', _style())
