"""Every page of every server comes from the page kit (issue 73): the suite reads each server's
router (the companion's, with its staff and set-up pages; the fleet's dashboard; the league's page)
rather than a list kept by hand, asks for each of its GET routes (a route's variable filled in,
signed in and not), and every answer that is a page must have the kit's head (its language, its
width), one ``main`` landmark, and never reload itself (a ``<meta http-equiv="refresh">`` or a
``Refresh`` header). A new server's page that goes around the kit fails here."""

from __future__ import annotations

import html
import re

from pi_table.config import broker as broker_config
from pi_table.fleet.dashboard import Dashboard, hash_password
from pi_table.fleet.league_page import LeaguePage
from pi_table.release.first_boot import pending
from pi_table.ui.i18n import translation
from pi_table.web.runner import ServerThread

from helpers_fleet import two_cafes_season
from helpers_games import dealt_key
from helpers_tables import StaffService, StaffTable
from walk import asked, pages_of, running, signed_in

PASSWORD = "organiser-secret-26"
NO_BROKER = broker_config("mqtt://127.0.0.1:1")  # the pages answer while their broker is away
REFRESH = re.compile(r"http-equiv\s*=\s*[\"']?refresh", re.IGNORECASE)


def faults_of(where: str, page: str, refresh: str) -> list[str]:
    """How a page goes around the kit."""
    faults = []
    if not re.match(r'<!doctype html>\n<html lang="(en|it)">\n<head>\n<meta charset="utf-8">\n'
                    r'<meta name="viewport" content="width=device-width, initial-scale=1">\n', page):
        faults.append(f"{where}: not the kit's head (web.document)")
    if len(re.findall(r"<main\b", page)) != 1:
        faults.append(f"{where}: not one main landmark")
    if REFRESH.search(page) or refresh:
        faults.append(f"{where}: reloads itself")
    return faults


def walked(server: ServerThread, port: int, cookies: tuple[str, ...] = ("",)) -> tuple[int, list[str]]:
    """Every route of ``server`` asked for with each of ``cookies``: the pages seen, and their faults."""
    pages, faults = 0, []
    for path, cookie, status, refresh, page in pages_of(server, port, cookies):
        pages += 1
        faults += faults_of(f"{path} ({status}{', signed in' if cookie else ''})", page, refresh)
    return pages, faults


def test_every_page_of_the_fleets_dashboard_and_the_leagues_page_is_the_kits(tmp_path):
    league, roster, _ = two_cafes_season(tmp_path)
    dashboard = Dashboard(NO_BROKER, "127.0.0.1", 0, hash_password(PASSWORD), client_id="every-page-fleet")
    page = LeaguePage(NO_BROKER, league, "127.0.0.1", 0, client_id="every-page-league",
                      password_hash=hash_password(PASSWORD), roster=roster)
    seen, faults = 0, []
    for server in (dashboard, page):
        with running(server):
            pages, found = walked(server, server.port, ("", signed_in(server.port, PASSWORD)))
            seen, faults = seen + pages, faults + found
    assert faults == []
    assert seen >= 5  # the dashboard's sign-in and tables, the league's season, its sign-in and the organiser's


def test_every_page_of_the_tables_own_server_is_the_kits(tmp_path):
    (tmp_path / "table").mkdir()
    table = StaffTable(tmp_path / "table", dealt_key())
    try:
        book = table.daemon.night.book
        book.open("Friday league", ["codenames"], ["1", "2"])  # the night's pages served too
        for team in ("The Owls", "Quiz Club"):
            book.join(team)
        companion = table.daemon.companion
        assert companion is not None
        pages, faults = walked(companion, companion.port)
    finally:
        table.close()
    (tmp_path / "fresh").mkdir()
    service = StaffService(tmp_path / "fresh", first_boot=True)  # a table that waits for its set-up: its page
    assert pending(tmp_path / "fresh" / "journal") is not None
    try:
        service.start()
        port = int(service.status()["companion"].rstrip("/").rsplit(":", 1)[1])
        status, refresh, page = asked(port, "/setup")
        assert status == 200 and page
        faults += faults_of("/setup", page, refresh)
        pages += 1
    finally:
        service.close()
    assert faults == []
    assert pages >= 4, pages  # the phones' page, a phone's refused, the staff page, the set-up page


def test_every_page_of_a_table_on_a_stand_in_machine_says_it_is_simulated_in_its_language(tmp_path, monkeypatch):
    """The kit's mark (``web.document.simulated``): while a table of this process is on a stand-in
    machine (``daemon.stand_in``), every page of every server says so first, in the page's language."""
    from pi_table import host
    from pi_table.web import document

    marks = {"en": document.SIMULATED, "it": translation("it").gettext(document.SIMULATED)}
    assert marks["it"] != marks["en"]
    monkeypatch.setattr(host, "STAND_INS", {"a table on a stand-in"})
    unmarked, seen = [], {"en": 0, "it": 0}
    for lang in ("en", "it"):
        (tmp_path / lang).mkdir()
        table = StaffTable(tmp_path / lang, dealt_key(), lang=lang)
        try:
            companion = table.daemon.companion
            assert companion is not None
            for path, _, status, _, page in pages_of(companion, companion.port):
                page_lang = re.search(r'<html lang="(\w+)">', page)[1]
                seen[page_lang] += 1
                if f'<body>\n<p class="simulated" role="note">{html.escape(marks[page_lang])}</p>' not in page:
                    unmarked.append(f"{path} ({status}, {page_lang})")
        finally:
            table.close()
    dashboard = Dashboard(NO_BROKER, "127.0.0.1", 0, hash_password(PASSWORD), client_id="every-page-stand-in")
    with running(dashboard):
        for path, _, status, _, page in pages_of(dashboard, dashboard.port):
            if f'<p class="simulated" role="note">{html.escape(marks["en"])}</p>' not in page:
                unmarked.append(f"{path} ({status}, the dashboard)")
    assert unmarked == []
    assert seen["en"] >= 2 and seen["it"] >= 2, seen
    monkeypatch.setattr(host, "STAND_INS", set())
    assert document.simulated("en") == ""  # a table on its own computer: no mark
