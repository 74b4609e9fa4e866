"""Reading the cards from a phone's picture (issue 79): the spymasters' key page and the staff page
send a picture, the table's reader gives the 25 words, a spymaster confirms them as the game's.
The picture is untrusted input, bounded in size and format, and kept nowhere."""

from __future__ import annotations

import http.client
import json
import logging
import os
import urllib.error
import urllib.request

import pytest

from pi_table.cards.reading import FixedWords
from pi_table.engine import InvalidAction, Rules, make_game
from pi_table.web.snapshot import SPYMASTER

from helpers_phones import another_phone, get

KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"
WORDS = tuple(f"parola{cell}" for cell in range(25))
READ = (*WORDS[:24], None)  # the last card's word could not be read: the spymaster types it


def jpeg(size: int = 64 * 1024) -> bytes:
    """A picture as a phone sends it: a JPEG's first bytes, then bytes found nowhere else."""
    return b"\xff\xd8\xff\xe0" + os.urandom(size)


def send(url: str, picture: bytes, phone, content_type: str = "image/jpeg") -> tuple[int, dict]:
    request = urllib.request.Request(url, data=picture, headers={"Content-Type": content_type}, method="POST")
    try:
        with phone.open(request, timeout=10) as answer:
            status, raw = answer.status, answer.read()
    except urllib.error.HTTPError as e:
        status, raw = e.code, e.read()
    try:
        return status, json.loads(raw)
    except ValueError:  # a page that does not exist: aiohttp's few words
        return status, {"ok": False, "error": None}


@pytest.fixture
def tokens():
    from pi_table.web import Tokens

    return Tokens(b"0123456789abcdef0123456789abcdef")


def spymasters_phone(companion, tokens):
    """A game on ``companion`` and the phone that opened its key page first (and so keeps it), with
    the key page's token."""
    from pi_table.web import codenames_snapshot

    game = make_game(Rules())
    companion.publish(codenames_snapshot("g1", game.spymaster_view(game.start(game.parse_key(KEY))), tokens))
    phone, token = another_phone(), tokens.token("g1", SPYMASTER)
    assert get(f"{companion.base_url}/p/{token}", phone)[0] == 200
    return phone, token


@pytest.fixture
def reading_page(tokens):
    """The phones' pages of a table whose reader reads every picture as ``READ``; the key page opened
    by ``phone`` (which keeps it)."""
    from pi_table.web import Companion
    from pi_table.web.reading import FakeCards

    calls: list[str] = []
    reader = FixedWords(READ)
    companion = Companion("127.0.0.1", 0, cards=FakeCards(calls, reader))
    companion.start()
    phone, token = spymasters_phone(companion, tokens)
    yield companion, f"{companion.base_url}/api/p/{token}", phone, reader
    companion.stop()


def test_the_key_page_reads_a_picture_into_the_words_in_their_places(reading_page):
    _, key_page, phone, reader = reading_page
    status, offer = get(f"{key_page}/cards?lang=it", phone)
    offer = json.loads(offer)
    assert status == 200 and offer["available"] is True and "mela" in offer["deck"]
    status, answer = send(f"{key_page}/cards?lang=it", jpeg(), phone)
    assert (status, answer) == (200, {"ok": True, "words": [*WORDS[:24], None]})
    assert reader.asked == [("it", len(offer["deck"]))]


@pytest.mark.parametrize("picture, content_type, status, said", [
    (b"GIF89a" + b"\0" * 100, "image/gif", 415, "this is not a JPEG, PNG or WebP picture"),
    (b"<svg xmlns='http://www.w3.org/2000/svg'/>", "image/jpeg", 415, "this is not a JPEG, PNG or WebP picture"),
    (b"RIFF\0\0\0\0WEBPVP8 ", "image/webp", 200, None),
    (b"\x89PNG\r\n\x1a\n" + b"\0" * 100, "image/png", 200, None),
    (b"", "image/jpeg", 400, "no picture arrived"),
])
def test_a_picture_is_taken_as_a_jpeg_png_or_webp_by_its_first_bytes(reading_page, picture, content_type, status, said):
    _, key_page, phone, _ = reading_page
    answered, answer = send(f"{key_page}/cards?lang=en", picture, phone, content_type)
    assert answered == status
    assert answer["ok"] is (said is None) and (said is None or answer["error"].startswith(said))


def test_a_picture_over_8_mb_is_refused_by_its_length_and_in_the_pages_language(reading_page):
    _, key_page, phone, reader = reading_page
    status, answer = send(f"{key_page}/cards?lang=it", jpeg(8 * 1024 * 1024 + 1), phone)
    assert status == 413 and answer["error"] == ("l'immagine è più grande di 8 MB: scattala di nuovo a una "
                                                 "risoluzione più bassa")
    assert reader.asked == []


def test_a_picture_sent_without_its_length_is_refused_as_soon_as_it_passes_8_mb(reading_page):
    companion, key_page, phone, reader = reading_page
    connection = http.client.HTTPConnection("127.0.0.1", companion.port, timeout=30)
    proof = next(handler for handler in phone.handlers if hasattr(handler, "cookiejar")).cookiejar
    cookie = "; ".join(f"{c.name}={c.value}" for c in proof)  # the key page's phone

    def chunks():
        yield jpeg(1024)
        for _ in range(9 * 16):  # 9 MB in all, never announced
            yield b"\0" * 65536

    path = key_page.split(str(companion.port), 1)[1]
    try:
        connection.request("POST", f"{path}/cards", body=chunks(), headers={"Content-Type": "image/jpeg", "Cookie": cookie},
                           encode_chunked=True)
        answer = connection.getresponse()
        assert answer.status == 413 and "larger than 8 MB" in json.loads(answer.read())["error"]
    except (BrokenPipeError, ConnectionResetError):  # closed as soon as refused, before the body was all sent
        pass
    finally:
        connection.close()
    assert reader.asked == []


def test_the_readers_reason_for_refusing_a_picture_is_said_in_the_pages_language(tokens):
    from pi_table.web import Companion
    from pi_table.web.reading import FAILED, FakeCards

    companion = Companion("127.0.0.1", 0, cards=FakeCards([], FixedWords(READ, refusal=FAILED)))
    companion.start()
    try:
        phone, token = spymasters_phone(companion, tokens)
        status, answer = send(f"{companion.base_url}/api/p/{token}/cards?lang=it", jpeg(), phone)
        assert status == 422 and answer == {"ok": False, "error": "non si sono potute leggere le carte: scatta di nuovo "
                                                                  "l'immagine"}
    finally:
        companion.stop()


def test_a_reader_that_fails_is_told_by_its_class_alone_never_with_the_picture(tokens, caplog):
    from pi_table.web import Companion
    from pi_table.web.reading import FakeCards

    picture = jpeg()

    def broken(picture: bytes, lang: str, deck: tuple[str, ...]):
        raise OSError(f"cannot decode {picture[:64]!r} {picture[:64].hex()}")

    companion = Companion("127.0.0.1", 0, cards=FakeCards([], broken))
    companion.start()
    try:
        phone, token = spymasters_phone(companion, tokens)
        with caplog.at_level(logging.DEBUG):
            status, answer = send(f"{companion.base_url}/api/p/{token}/cards", picture, phone)
    finally:
        companion.stop()
    assert status == 500 and answer["error"] == "the cards could not be read: take the picture again"
    assert "OSError" in caplog.text and picture[4:36].hex() not in caplog.text and "cannot decode" not in caplog.text


def test_only_the_key_page_reads_the_cards(reading_page, tokens):
    from pi_table.web import codenames_snapshot

    companion, key_page, phone, reader = reading_page
    base = companion.base_url
    assert send(f"{base}/api/public/cards", jpeg(), another_phone())[0] in (404, 405)  # no such page for spectators
    status, answer = send(f"{key_page}/cards", jpeg(), another_phone())  # the token seen over a shoulder
    assert status == 403 and not answer["ok"]
    seat = tokens.token("g1", "seat-0")
    assert send(f"{base}/api/p/{seat}/cards", jpeg(), another_phone())[0] == 404  # no seat in a grid game
    companion.publish(codenames_snapshot("g2", make_game(Rules()).spymaster_view(
        make_game(Rules()).start(make_game(Rules()).parse_key(KEY))), tokens))
    assert send(f"{key_page}/cards", jpeg(), phone)[0] == 404  # the game it was for has ended
    assert reader.asked == []


def test_a_table_without_a_reader_says_so_on_the_key_page(companion, tokens):
    phone, token = spymasters_phone(companion, tokens)
    status, offer = get(f"{companion.base_url}/api/p/{token}/cards?lang=it", phone)
    assert status == 200 and json.loads(offer) == {"available": False, "deck": [],
                                                   "unavailable": "leggere le carte non è possibile su questo tavolo"}
    status, answer = send(f"{companion.base_url}/api/p/{token}/cards", jpeg(), phone)
    assert status == 503 and answer["error"] == "reading the cards is not available on this table"


def test_the_key_pages_one_action_is_the_cards_words():
    from pi_table.web.reading import key_holders_action

    assert key_holders_action("words " + " ".join(WORDS)).words == WORDS
    for other in ("clue 2", "touch 3", "undo"):
        with pytest.raises(InvalidAction, match="confirms the cards' words alone"):
            key_holders_action(other)
    with pytest.raises(InvalidAction, match="25 words"):
        key_holders_action("words a b")


@pytest.fixture
def table(tmp_path, monkeypatch):
    """A table started as the service starts it, whose reader reads every picture as ``READ``."""
    from helpers_tables import StaffTable, reading_with

    reading_with(tmp_path, monkeypatch, READ)
    (tmp_path / "table").mkdir()
    table = StaffTable(tmp_path / "table", KEY)
    yield table
    table.close()


def everything_kept(folder) -> bytes:
    return b"".join(path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file())


@pytest.mark.daemon
def test_the_spymaster_reads_and_confirms_the_words_which_reach_every_page_and_the_journal_and_not_the_picture(
        table, tmp_path, caplog):
    from pi_table.web.tokens import Tokens

    daemon = table.daemon
    token = Tokens.kept_in(tmp_path / "table/journal").token(daemon.session.id, SPYMASTER)
    phone = another_phone()
    assert get(f"{table.base}/p/{token}", phone)[0] == 200
    picture = jpeg()
    with caplog.at_level(logging.DEBUG):
        status, answer = send(f"{table.base}/api/p/{token}/cards?lang=en", picture, phone)
        assert status == 200 and answer["words"] == [*WORDS[:24], None]
        confirmed = [*WORDS[:24], "parola24"]  # the one the reader could not read, typed
        status, answer = send(f"{table.base}/api/p/{token}/act", json.dumps(
            {"action": "words " + " ".join(confirmed)}).encode(), phone, "application/json")
        assert (status, answer) == (200, {"ok": True, "error": None})
    public = json.loads(get(f"{table.base}/api/public")[1])
    assert public["words"] == confirmed and "key" not in public["view"]
    assert daemon.session.table_view().words == tuple(confirmed)
    journal = next((tmp_path / "table/journal").glob("*.jsonl")).read_text()
    assert "words " + " ".join(confirmed) in journal
    # the picture: in no file of the table's folder, no log line
    kept, logged = everything_kept(tmp_path / "table"), caplog.text
    for part in (picture[4:36], picture[-32:]):
        assert part not in kept and part.hex() not in logged and part.hex().encode() not in kept


@pytest.mark.daemon
def test_the_staff_read_and_confirm_the_words_and_undo_takes_them_back(table):
    from helpers_staff import Staff

    staff = Staff(table.base)
    assert staff.call("GET", "/staff/api/cards")[0] == 401  # no session, nothing
    assert staff.call_bytes("POST", "/staff/api/cards", jpeg(), "image/jpeg")[0] in (401, 403)
    staff.login()
    status, offer = staff.call("GET", "/staff/api/cards")
    assert status == 200 and offer["available"] is True and "apple" in offer["deck"]
    status, answer = staff.call_bytes("POST", "/staff/api/cards", jpeg(), "image/jpeg")
    assert status == 200 and answer["words"][:24] == list(WORDS[:24])
    assert staff.call("POST", "/staff/api/cards/words", {"words": list(WORDS[:24])}) == (
        400, {"ok": False, "error": 'expected {"words": [THE 25 WORDS, CELL 0 FIRST]}'})
    assert staff.call("POST", "/staff/api/cards/words", {"words": list(WORDS)}) == (200, {"ok": True})
    assert json.loads(get(f"{table.base}/api/public")[1])["words"] == list(WORDS)
    table.guess(3)
    status, exported = staff.call("GET", "/staff/api/history.csv")
    header, played = exported.splitlines()[:2]
    assert header.endswith(",score,guessed") and played.endswith(",parola3")
    assert staff.call("POST", "/staff/api/undo")[0] == 200  # the touch
    assert staff.call("POST", "/staff/api/undo")[0] == 200  # the words
    assert "words" not in json.loads(get(f"{table.base}/api/public")[1])


@pytest.mark.daemon
def test_a_table_whose_reader_cannot_be_loaded_says_reading_is_not_available(tmp_path, monkeypatch):
    from pi_table.daemon import cards_desk

    from helpers_staff import Staff
    from helpers_tables import StaffTable

    monkeypatch.setattr(cards_desk, "READER", "pi_table.cards.no_such_reader")
    table = StaffTable(tmp_path, KEY, lang="it")
    try:
        staff = Staff(table.base, lang="it")
        staff.login()
        status, offer = staff.call("GET", "/staff/api/cards")
        assert status == 200 and offer["available"] is False
        assert offer["unavailable"] == "leggere le carte non è possibile su questo tavolo"
        status, answer = staff.call_bytes("POST", "/staff/api/cards", jpeg(), "image/jpeg")
        assert status == 503 and answer["error"] == "leggere le carte non è possibile su questo tavolo"
    finally:
        table.close()
