"""The Italian says what the English means, in natural Italian (issue 31): the card touched, not
"the 4th touch"; states that agree with any device; a number's plural forms; no calques."""

from __future__ import annotations

import re

import pytest

from pi_table.hal.events import HEALTHY
from pi_table.ui.i18n import say_health, translation
from pi_table.ui.messages import parse_po, po_path

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
