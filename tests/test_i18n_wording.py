"""The Italian says what the English means, in natural Italian (issue 31): the card touched, not
"the 4th touch"; states that agree with any device; a number's plural forms; no calques."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from pi_table.hal.events import HEALTHY
from pi_table.ui.i18n import say_health, translation
from pi_table.ui.messages import parse_po, po_path

from helpers import defined_tests

ITALIAN = parse_po(po_path("it").read_text(encoding="utf-8"))


def test_a_touched_card_is_the_card_not_a_numbered_touch():
    touched = {msgid: msgstr for msgid, msgstr in ITALIAN.items() if msgid.startswith("touch {cell} ")}
    assert len(touched) == 9 and all(msgstr.startswith("la carta {cell} ") for msgstr in touched.values())
    assert ITALIAN["touch {cell} was a bystander"] == "la carta {cell} era un ignaro passante"


def test_a_devices_state_reads_the_same_after_any_device():
    states = {state: say_health(state, "it") for state in HEALTHY}
    assert states == {"ok": "ok", "simulated": "in simulazione", "not fitted": "non in dotazione", "off": "non in uso",
                      "starting": "in avvio", "connecting": "in collegamento"}


@pytest.mark.parametrize("singular, plural, one, many", [
    ("{count} vote", "{count} votes", "1 voto", "3 voti"),
    ("touch each card once ({count} to go)", "touch each card once ({count} to go)",
     "tocca ogni carta una volta (ne manca 1)", "tocca ogni carta una volta (ne mancano 3)"),
    ("nuke armed at 13 ({count} targeted)", "nuke armed at 13 ({count} targeted)",
     "la bomba si innesca a 13 alias colpiti: finora 1", "la bomba si innesca a 13 alias colpiti: finora 3"),
])
def test_a_number_takes_its_plural_form(singular, plural, one, many):
    words = translation("it")
    assert words.ngettext(singular, plural, 1).format(count=1) == one
    assert words.ngettext(singular, plural, 3).format(count=3) == many


def test_the_codex_seat_counts_its_votes_in_both_languages():
    english, italian = translation("en"), translation("it")
    assert english.ngettext("{count} vote", "{count} votes", 1).format(count=1) == "1 vote"
    assert [italian.ngettext("{count} vote", "{count} votes", n).format(count=n) for n in (1, 2)] == ["1 voto", "2 voti"]


@pytest.mark.parametrize("calque", [r"\bvuole\b", r"\bsi aspettava\b", r"\buno tra\b", r"\buna tra\b", r"\bdistribui",
                                    r"\bdite\b", r"\bParlate\b", r"\bil tocco \{cell\}", r"\bindicata\b", r"\bestorta\b"])
def test_no_calque_or_muddled_form_is_left(calque):
    assert [msgstr for msgstr in ITALIAN.values() if re.search(calque, msgstr)] == []


def test_the_inquisitore_and_the_infiltrato_say_what_the_book_says():
    assert ITALIAN["you extorted {agent}'s {fact}: {outcome}"] == "estorsione a {agent} ({fact}): {outcome}"
    assert (ITALIAN["named"], ITALIAN["extorted"]) == ("richiesta", "riuscita")  # agreeing with estorsione
    infiltrato = ITALIAN["Everyone is told {shown}, and so is every fact you give; you hold {faction}'s fragment and "
                         "win with {faction}."]
    assert "identikit" in infiltrato and "appartieni alla fazione {faction}" in infiltrato


# --- the native reader's audit (issue 41): every row fixed, or kept with its reason ---------------

ROOT = Path(__file__).resolve().parent.parent
AUDIT = ROOT / "docs" / "dev" / "audits" / "italian-2026-11.tsv"
OUTCOMES = ("as proposed", "otherwise: ", "kept: ", "gone: ")
"""A row's outcome: the catalogue says what the audit proposed; it says something else, and why; it
keeps its words, and why; or its English is no longer said (the code changed since the reading)."""


def audit() -> list[dict[str, str]]:
    with open(AUDIT, encoding="utf-8", newline="") as file:
        return list(csv.DictReader(file, delimiter="\t"))


def test_every_row_of_the_italian_audit_has_an_outcome_and_its_reason():
    rows = audit()
    assert len(rows) == 114
    unsaid = [row["msgid"] for row in rows if not row["outcome"].startswith(OUTCOMES)
              or (not row["outcome"].startswith("as proposed") and len(row["outcome"].split(": ", 1)[1]) < 10)]
    assert unsaid == []


@pytest.mark.parametrize("row", audit(), ids=lambda row: row["msgid"][:40])
def test_the_audits_finding_is_gone_from_where_it_was_read(row):
    """A catalogue entry says the proposal, or at least no longer what was read; any other place
    (a page of the docs, a screenshot, the terminal, the staff page) names the test that holds its
    outcome, and a page of the docs no longer has the words read there."""
    where, now, outcome = row["msgid"], row["now"].split(" || ")[0], row["outcome"]
    assert outcome.startswith(OUTCOMES), f"{where}: no outcome"
    if where in ITALIAN or outcome.startswith("gone: "):
        if outcome.startswith("gone: "):
            assert where not in ITALIAN
        elif outcome == "as proposed":
            assert ITALIAN[where] == row["proposed"]
        elif outcome.startswith("otherwise: "):
            assert ITALIAN[where] != now
        return
    named = re.findall(r"tests/test_\w+\.py::test_\w+", outcome)
    assert named and {name.removeprefix("tests/") for name in named} <= defined_tests(), \
        f"{where}: its outcome names no test of the suite"
    page = re.match(r"(docs/[\w/.-]+\.md):", where)
    if page and not outcome.startswith("kept: "):
        assert now not in (ROOT / page.group(1)).read_text(encoding="utf-8")


SAMPLE = ROOT / "docs" / "dev" / "audits" / "italian-2026-11-27.tsv"
"""Issue 63's random 300 entries: the 14 with a finding, each 'done: ' with the catalogue's new
words, 'kept: ' and why, or 'reworded: ' with the English that replaced the entry since (issue 62:
'Given: forget it' said too little in either language)."""


def sampled() -> list[dict[str, str]]:
    with open(SAMPLE, encoding="utf-8", newline="") as file:
        return list(csv.DictReader(file, delimiter="\t"))


def test_the_sampled_audit_has_all_its_rows_and_each_an_outcome():
    rows = sampled()
    assert len(rows) == 14
    assert [row["msgid"] for row in rows if not row["done"].startswith(("done: ", "kept: ", "reworded: "))] == []


@pytest.mark.parametrize("row", sampled(), ids=lambda row: row["msgid"][:40])
def test_the_sampled_audits_finding_is_mended_in_the_catalogue_as_its_row_says(row):
    outcome, said = row["done"].split(": ", 1)
    if outcome == "done":
        assert ITALIAN[row["msgid"]] == said != row["now"]
    elif outcome == "reworded":  # the entry gone, its successor translated
        assert row["msgid"] not in ITALIAN and ITALIAN[said] not in ("", row["now"])
    else:
        assert ITALIAN[row["msgid"]] == row["now"] and len(said) >= 10


ROUND = ROOT / "docs" / "dev" / "audits" / "italian-2026-11-29.tsv"
"""Issue 73's 45 wording rows: catalogue entries (S), the owner's notifications (N) and the owner's
pages (D), each 'done: ' (for an entry, with the catalogue's words now), 'kept: ' and why,
'reworded: ' with the English that replaced the entry, or 'open: ' and what is left."""


def round_rows() -> list[dict[str, str]]:
    with open(ROUND, encoding="utf-8", newline="") as file:
        return list(csv.DictReader(file, delimiter="\t"))


def test_the_round_audit_has_all_its_rows_and_each_an_outcome():
    rows = round_rows()
    assert len(rows) == 45
    assert [row["id"] for row in rows if not row["done"].startswith(("done: ", "kept: ", "reworded: ", "open: "))] == []


@pytest.mark.parametrize("row", [row for row in round_rows() if row["id"].startswith("S")], ids=lambda row: row["id"])
def test_the_round_audits_catalogue_rows_are_in_the_catalogue_as_they_say(row):
    outcome, said = row["done"].split(": ", 1)
    if outcome == "done":
        assert ITALIAN[row["file/msgid"]] == said != row["current"]
    elif outcome == "reworded":  # the entry gone, its successor translated
        assert row["file/msgid"] not in ITALIAN and ITALIAN[said] not in ("", row["current"])
    else:
        assert outcome == "kept" and ITALIAN[row["file/msgid"]] == row["current"] and len(said) >= 10


@pytest.mark.parametrize("lang, waiting, said", [
    ("it", [5], "fase 2, momento: voto; si aspetta il posto 5"),
    ("it", [1, 4], "fase 2, momento: voto; si aspettano i posti 1, 4"),
    ("it", [], "fase 2, momento: voto; non si aspetta nessuno"),
    ("en", [5], "phase 2, vote step; waiting for seat 5"),
    ("en", [], "phase 2, vote step; waiting for no one"),
])
def test_codex_status_says_the_seats_it_waits_for_in_their_number(lang, waiting, said):
    from pi_table.cli.codex import status

    assert status({"phase": 2, "step": "vote", "waiting_for": waiting}, lang) == [said]


def test_the_tunings_and_the_restores_counts_take_their_plural_forms():
    from pi_table.engine.phrase import Phrase
    from pi_table.ui.i18n import say
    from pi_table.ui.tune_lines import suggested

    assert say(suggested(1, 25), "it").startswith("1 sensore su 25 ha un suggerimento (")
    assert say(suggested(3, 25), "it").startswith("3 sensori su 25 hanno un suggerimento (")
    assert say(suggested(1, 25), "en").startswith("1 of 25 pads has a suggestion (")
    history = ("games", "the games' history: {games} game in place of the {now} kept now",
               "the games' history: {games} games in place of the {now} kept now")
    assert [say(Phrase.counting(*history, games=games, now=now), "it") for games, now in ((1, 1), (2, 1))] == [
        "lo storico delle partite: 1 partita, al posto delle partite conservate ora (1)",
        "lo storico delle partite: 2 partite, al posto delle partite conservate ora (1)"]


ITALIAN_DOCS = sorted((ROOT / "docs").rglob("*.it.md"))


@pytest.mark.parametrize("word", [r"\bdistribui", r"\bsalvataggi", r"\bpersonale\b", r"\bcapispia\b", r"\bcapo spia\b",
                                  r"\brotella\b", r"\bil companion\b", r"\bgiornale\b(?! di sistema)",
                                  r"\bcappuccio\b", r"\bnon sta bene\b", r"\bPrepara (questo|il) tavolo\b",
                                  r"\b(schermo|schermi) (degli|dello|per gli) spymaster\b"])
def test_no_calque_or_second_name_is_left_in_the_catalogue_or_the_italian_docs(word):
    """The catalogue's ban on "distribuire" a game, issue 53's calques (a hood, a device that "sta
    bene", a table "preparato") and one name a thing (backup, staff, capi dell'agenzia, manopola,
    pagine per i telefoni, registro delle partite) hold in every message, a new one too, and reach
    the Italian docs: an owner reads the pages beside the staff page."""
    found = [msgstr for msgstr in ITALIAN.values() if re.search(word, msgstr)]
    found += [f"{path.relative_to(ROOT)}:{number}" for path in ITALIAN_DOCS
              for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1) if re.search(word, line)]
    assert found == []


@pytest.mark.parametrize("msgid, wrong", [
    ("Set up this table", "Prepara"),  # a café reads it as laying a table
    ("Set up the table", "Prepara"),
    ("how far the panel is turned clockwise in the hood from its native upright: Touch Display 2 90 or 270, "
     "others 0 or 180", "cappuccio"),
    (" (the default, the Touch Display 2's in the hood)", "cappuccio"),
    ("Saved: the table restarts to try it, and goes back by itself if it is not healthy.", "sta bene"),
    ("this machine lacks {packages}: install them (Debian: sudo apt install {packages})", "installalo"),  # a list
    ("shown", "scoperta"),  # the terminal's legend beside copri: covering a card makes it "scoperta"?
])
def test_the_last_wordings_of_issue_53_are_gone(msgid, wrong):
    assert wrong not in ITALIAN[msgid]


@pytest.mark.parametrize("msgid", ["shown", "card {cell} is already revealed", "{card}, revealed",
                                   "{cell} revealed: {card}",
                                   "play the cues: a reveal, the turn, the timer, the game's end (README, Sound)"])
def test_a_revealed_card_is_covered_in_every_italian_message_as_the_book_has_it(msgid):
    """Issue 63, item 4: the phones said "scoperta", the terminal "rivelata", and the book has the
    word covered by an agent's card: one term, "coperta", on every surface (a card still in play is
    "da scoprire", the audit's italian-2026-11.tsv)."""
    said = ITALIAN[msgid]
    assert "copert" in said and not re.search(r"scopert|rivelat", said), said


def test_italian_says_ad_before_a_name_that_begins_with_a_whatever_the_name():
    """Issue 63, item 5: "Estorcere un'informazione a Aleman": Italian's "ad" before a word that
    begins with "a" is a rule of the sentence as said (the name filled in decides it), in every
    template, on the screen, the terminal and the phones' server alike."""
    from pi_table.engine.phrase import Phrase
    from pi_table.ui.i18n import say, translation

    _ = translation("it").gettext
    assert _("Extort a fact from {agent}, if it goes there?").format(agent="Aleman (posto 1)") == \
        "Estorcere un'informazione ad Aleman (posto 1), se ci va?"
    assert _("Extort a fact from {agent}, if it goes there?").format(agent="Moon (posto 0)") == \
        "Estorcere un'informazione a Moon (posto 0), se ci va?"
    assert _("Pass the screen to {agent}").format(agent="Aleman") == "Passa lo schermo: tocca ad Aleman"
    assert say(Phrase.of("Pass the screen to {agent}", agent="Aleman"), "it") == "Passa lo schermo: tocca ad Aleman"
    assert translation("en").gettext("Extort a fact from {agent}, if it goes there?").format(agent="Aleman") == \
        "Extort a fact from Aleman, if it goes there?"


def test_waiting_for_agents_agrees_with_any_number_of_them():
    """Issue 63, item 5: "Si aspetta: Drago, Cipher, Nova" (one verb for many)."""
    said = ITALIAN["Waiting for {agents}."]
    assert not said.startswith("Si aspetta:"), said
    assert said.format(agents="Drago, Cipher, Nova") == "In attesa di Drago, Cipher, Nova."


def test_the_owners_list_of_what_needs_the_passphrase_has_one_e():
    """Issue 63, item 5: "riavvio e spegnimento e impostazioni" (two "e" in one list, as /setup had)."""
    said = ITALIAN["Updates, backups, restores, power and the fleet's settings need the owner's passphrase."]
    assert said.count(" e ") == 1, said
