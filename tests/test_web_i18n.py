"""The phone pages speak the table's language, and each phone may pick its own.

Every text a page shows is a msgid of the one catalogue: marked in the page script and the page
(``pi_table.web.texts``), or in the server's own sentences; the Italian catalogue must have them
all, and no prose may hide outside the markers. In a real browser, an Italian table's pages show
no sentence of the English texts, a refusal comes back in Italian, and a phone's own choice of
language is kept across a reload.
"""

from __future__ import annotations

import html
import json
import re
import threading
from html.parser import HTMLParser
from importlib import resources

import pytest

from pi_table.engine import Rules, make_game
from pi_table.engine.phrase import Phrase
from pi_table.ui.i18n import translation
from pi_table.ui.messages import parse_po, po_path
from pi_table.web import Companion, Tokens, codenames_snapshot
from pi_table.web.phones import ANOTHER_PHONE, REPLACED
from pi_table.web.texts import msgids, page_files, page_texts
from pi_table.web.tokens import SPYMASTER, seat_role

from helpers import wait_for
from helpers_games import played
from helpers_phones import another_phone, get, post
from helpers_tables import CODEX_CONFIG, service_daemon

STATIC = resources.files("pi_table.web").joinpath("static")
CATALOGUE = parse_po(po_path("it").read_text(encoding="utf-8"))
FIELD = re.compile(r"\{(\w+)(?::\w+)?\}")


def test_every_text_of_the_pages_and_the_server_has_an_italian_translation():
    found = msgids()
    assert {"The table is starting.", "connecting…", "Phase {phase}: {step}", "the grid"} <= found  # marked ones
    assert REPLACED in found  # and the server's own
    missing = sorted(found - set(CATALOGUE))
    assert not missing, f"{len(missing)} page texts have no Italian translation: {missing}"
    for msgid in found:
        fields = set(FIELD.findall(msgid))
        assert set(FIELD.findall(CATALOGUE[msgid])) == fields, f"{msgid!r} and its translation name other fields"


class _TextNodes(HTMLParser):
    """The page's text nodes, each with whether an element around it is marked."""

    def __init__(self) -> None:
        super().__init__()
        self.open: list[dict] = []
        self.texts: list[tuple[str, bool]] = []

    def handle_starttag(self, tag, attrs) -> None:
        if tag not in ("meta", "link"):
            self.open.append(dict(attrs))

    def handle_endtag(self, tag) -> None:
        self.open.pop()

    def handle_data(self, data) -> None:
        if data.strip():
            marked = any(a.get("data-i18n") == data.strip() or a.get("translate") == "no" for a in self.open)
            self.texts.append((data.strip(), marked))


CODE_WORDS = {"send", "code", "block", "profile", "vote", "reveal", "done", "extort"}
"""Words in the script's literals that are the table's action syntax, not prose."""
ALLOWED = {"Content-Type", "use strict"}


def prose_outside_markers(script: str) -> list[str]:
    """String literals of the script that read as prose and are not a marked msgid: with a
    space or a capital, and a word that is neither a CSS class of the page nor action syntax."""
    classes = set(re.findall(r"\.([A-Za-z][\w-]*)", STATIC.joinpath("style.css").read_text(encoding="utf-8")))
    script = re.sub(r"^\s*//.*$|  //.*$", "", script, flags=re.MULTILINE)  # comments: prose for the reader, never shown
    found = []
    for match in re.finditer(r'(\b(?:t|tn|N_)\(\s*)?("(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`)', script):
        marker, literal = match.groups()
        text = re.sub(r"\$\{[^}]*\}", "", literal[1:-1])
        if marker or text in ALLOWED or text.isupper() or not (" " in text.strip() or text[:1].isupper()):
            continue
        if any(word.lower() not in classes | CODE_WORDS for word in re.findall(r"[A-Za-z]{2,}", text)):
            found.append(literal)
    return found


def test_no_english_is_left_outside_the_markers():
    parser = _TextNodes()
    parser.feed(STATIC.joinpath("page.html").read_text(encoding="utf-8"))
    assert parser.texts and [text for text, marked in parser.texts if not marked] == []
    assert prose_outside_markers('el("p", {}, "The table is starting.", `${a} to play`, "chip picked")') == [
        '"The table is starting."', "`${a} to play`"]  # the check sees prose, and lets class lists be
    for script in page_files()[1:]:  # app.js, and each kind's own (codex.js)
        assert prose_outside_markers(STATIC.joinpath(script).read_text(encoding="utf-8")) == [], script
    assert page_files()[1:] == ("app.js", "codex.js")


BYPASSING_INTL = re.compile(
    r"\.(toFixed|toPrecision|toLocaleString|toLocaleDateString|toLocaleTimeString)\("  # the phone's locale, or none
    r"|Intl\.\w+\(\s*(\[\]|undefined|\))"  # Intl in the phone's language, not the page's
    r"|\$\{(Math\.\w+\(|r\.|String\()"  # a number put into a text as JavaScript writes it
    r"|String\(line\["  # a standings line's number as JavaScript writes it
    r"|\.replace\(\"T\", \" \"\)"  # an ISO date cut, not a date in words
    r"|type: \"(date|datetime-local|time|month|week)\""  # the phone's picker, written as its locale writes dates
)


def bypassing_intl(script: str) -> list[str]:
    """The lines of a page script that show a number or a date without Intl in the page's language."""
    return [line.strip() for line in script.splitlines() if BYPASSING_INTL.search(line)]


def test_every_number_and_date_a_page_shows_goes_through_intl_in_the_pages_language():
    """Issue 63, item 2: "3.44" on an Italian page, the owner's dates in the phone's locale; issue 62,
    4: the log's From and To, the phone's own date pickers, in the phone's locale whatever the page's."""
    assert bypassing_intl("x.toFixed(2)\n`${Math.round(v)} MB`\nnew Intl.DateTimeFormat([], {})\nnumber(v)") == [
        "x.toFixed(2)", "`${Math.round(v)} MB`", "new Intl.DateTimeFormat([], {})"]  # the check sees them
    assert bypassing_intl('el("input", { id: "log-since", type: "datetime-local" })') != []  # 27/11/2026 in en-GB
    found = {script.name: lines for script in sorted(STATIC.iterdir()) if script.name.endswith(".js")
             if (lines := bypassing_intl(script.read_text(encoding="utf-8")))}
    assert found == {}


def test_the_texts_come_from_the_catalogue_and_the_server_speaks_the_pages_language():
    texts = page_texts("it")
    assert texts["lang"] == "it" and texts["languages"] == ["en", "it"]
    assert texts["texts"]["Phase {phase}: {step}"] == CATALOGUE["Phase {phase}: {step}"]
    assert texts["teams"]["red"]["m"] == "rosso"
    assert page_texts("en")["texts"]["Phase {phase}: {step}"] == "Phase {phase}: {step}"
    with pytest.raises(ValueError, match="not 'fr'"):
        Companion(language="fr")


@pytest.fixture
def tokens():
    return Tokens(b"0123456789abcdef0123456789abcdef")


@pytest.fixture
def italian():
    companion = Companion("127.0.0.1", 0, act=lambda game_id, role, text: Phrase.of("there is nothing to undo"), language="it")
    companion.start()
    yield companion
    companion.stop()


def spymaster_view(actions=()):
    """A Codenames game on red's nine agents (cells 0-8) and the assassin on cell 24."""
    game = make_game(Rules())
    key = game.parse_key("RRRRRRRRRBBBBBBBBNNNNNNNA")
    return game.spymaster_view(played(game, key, actions))


def test_an_italian_companion_serves_italian_and_a_page_may_ask_for_english(italian, tokens):
    italian.publish(codenames_snapshot("g1", spymaster_view(["clue 1", "touch 24"]), tokens))  # the assassin
    base = italian.base_url
    page = get(base + "/")[1].decode()
    assert '<html lang="it">' in page and 'data-i18n="connecting…">connessione in corso…<' in page  # no English as it loads
    assert json.loads(get(base + "/api/public")[1])["view"]["reason"] == "la squadra rossa ha toccato l'assassino"
    assert json.loads(get(base + "/api/public?lang=en")[1])["view"]["reason"] == "red touched the assassin"
    url = f"{base}/api/p/{tokens.token('g1', SPYMASTER)}/act"
    assert post(url, b'{"action": "undo"}') == (409, {"ok": False, "error": "non c'è niente da annullare"})
    assert post(url + "?lang=en", b'{"action": "undo"}') == (409, {"ok": False, "error": "there is nothing to undo"})
    assert get(f"{base}/p/{tokens.token('g1', SPYMASTER)}")[0] == 200  # this phone keeps the key's page
    status, refusal = get(f"{base}/p/{tokens.token('g1', SPYMASTER)}", another_phone())
    assert status == 403 and b'<html lang="it">' in refusal
    assert html.escape(translation("it").gettext(ANOTHER_PHONE)).encode() in refusal
    assert post(url, b'{"act": 1}')[1]["error"] == translation("it").gettext('expected a JSON object {"action": "<one line of text>"}')


# --- in a real browser -------------------------------------------------------------------------


def english_sentences() -> set[str]:
    """The page texts of more than one word, without fields, whose Italian differs: none may show."""
    return {msgid for msgid in msgids() if " " in msgid and "{" not in msgid and CATALOGUE.get(msgid, msgid) != msgid}


def leaked(page) -> set[str]:
    body = page.inner_text("body")
    return {sentence for sentence in english_sentences() if sentence in body}


@pytest.fixture
def italian_table(tmp_path):
    """A Codex daemon in this process set to Italian (``[game] language``), its loop in a thread."""

    (tmp_path / "config.toml").write_text(CODEX_CONFIG.replace('game = "codex"', 'game = "codex"\nlanguage = "it"'))
    daemon = service_daemon(tmp_path / "config.toml")
    daemon.start()
    runner = threading.Thread(target=daemon.run, daemon=True)
    runner.start()
    assert daemon.wait_for_phones()
    wait_for(lambda: daemon.companion is not None, "the companion to stand beside the screen")
    yield daemon
    daemon.stop()
    runner.join(timeout=5)
    daemon.close()


def seat_link(daemon, tmp_path, seat: int) -> str:
    token = Tokens.kept_in(tmp_path / "journal").token(daemon.session.id, seat_role(seat))
    return daemon.companion.link(token)


def test_an_italian_tables_pages_speak_italian_and_a_phone_may_switch(italian_table, tmp_path, browser):
    assert b'<html lang="it">' in get(italian_table.companion.base_url + "/")[1]  # the daemon passed its language on
    context = browser.new_context()
    try:
        moon = context.new_page()
        moon.goto(seat_link(italian_table, tmp_path, 0))
        moon.wait_for_selector("#status:text-is('Fase 1: Comunicazioni private')")
        assert moon.get_attribute("html", "lang") == "it"
        assert "Invia il tuo frammento" in moon.inner_text("body") and not leaked(moon)
        assert moon.evaluate("act('done 0')") is False  # a refusal, in the page's language
        assert moon.inner_text("#status") == (
            "un agente termina il suo turno privato solo durante il turno privato: "
            "gli agenti inviano le loro comunicazioni private")
        public = context.new_page()
        public.goto(italian_table.companion.base_url + "/")
        public.wait_for_selector("text=Ogni agente invia")
        assert not leaked(public)

        moon.click("#languages button[lang=en]")  # this phone's own choice
        moon.wait_for_selector("#status:text-is('Phase 1: Messages')")
        assert moon.get_attribute("html", "lang") == "en" and "Send your message" in moon.inner_text("body")
        assert "Send your fragment and one fact of your identikit to another agent." in " ".join(leaked(moon))  # it can fail
        moon.reload()
        moon.wait_for_selector("text=Send your message")  # remembered on this phone
        assert moon.get_attribute("html", "lang") == "en"
        assert moon.get_attribute("#languages button[lang=en]", "aria-pressed") == "true"
        other = browser.new_context()  # another phone keeps the table's language
        try:
            page = other.new_page()
            page.goto(seat_link(italian_table, tmp_path, 1))
            page.wait_for_selector("#status:text-is('Fase 1: Comunicazioni private')")
        finally:
            other.close()
        moon.click("#languages button[lang=it]")
        moon.wait_for_selector("#status:text-is('Fase 1: Comunicazioni private')")
    finally:
        context.close()


def test_the_italian_spymaster_key_page_and_board_speak_italian(italian, tokens, browser):
    italian.publish(codenames_snapshot("g1", spymaster_view(["clue 1"]), tokens))
    page = browser.new_page()
    try:
        page.goto(f"{italian.base_url}/p/{tokens.token('g1', SPYMASTER)}")
        page.wait_for_selector("text=La chiave")
        assert "Gli agenti operativi rossi provano a indovinare" in page.inner_text("#summary") and not leaked(page)
        page.goto(italian.base_url + "/")
        page.wait_for_selector(".grid .cell.hidden")
        assert page.inner_text("#summary").startswith("Gli agenti operativi rossi provano a indovinare") and not leaked(page)
        assert page.get_attribute(".grid", "aria-label") == "la griglia"
        italian.publish(codenames_snapshot("g1", spymaster_view(["clue unlimited"]), tokens))  # a word, not a number
        page.wait_for_selector("#summary:has-text('indizio senza limiti')")
        assert "unlimited" not in page.inner_text("body")
    finally:
        page.close()
