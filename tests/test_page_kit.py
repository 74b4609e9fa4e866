"""One page kit for every server (issue 73): the league's page and the fleet's dashboard are made as
the table's pages are (``web.document``): the kit's head, a ``main`` landmark, no page that reloads
itself (a screen reader thrown back to its top each minute), numbers and dates marked for ``Intl``
in the reader's language with the time zone said once, and a refused night said in words, never
the program's path to a field. (The browser's side, axe at both widths and the Italian numbers
as ``Intl`` writes them: tests/test_a11y.py.)"""

from __future__ import annotations

import json
import random
import re
import urllib.error
import urllib.request
from html import unescape

import pytest

from pi_table.fleet.league import League, night_topic
from pi_table.fleet.league_page import login_page, page

from helpers_fleet import sent, two_cafes

REFRESH = re.compile(r"http-equiv\s*=\s*[\"']?refresh", re.IGNORECASE)
CAFES = {"bar-roma": ["r1", "r2"], "bar-milano": ["m1", "m2", "m3"]}


@pytest.fixture(scope="module")
def league(tmp_path_factory) -> League:
    """Six nights of two cafés, and a night refused: a café the league does not have."""
    _, played = two_cafes(tmp_path_factory.mktemp("league"), random.Random(5))
    kept = League("spring", cafes=CAFES)
    for cafe, host, night in played:
        kept.take(*sent(night, cafe, host))
    cafe, host, night = played[0]
    stranger = {**json.loads(sent(night, cafe, host)[1]), "cafe": "bar-napoli"}
    kept.take(night_topic("spring", "bar-napoli", host, night.id), json.dumps(stranger).encode())
    return kept


def served(league: League, lang: str) -> dict[str, str]:
    """Every page the league's server makes, in ``lang``: a visitor's, the organiser's, a read-only one, the sign-in."""
    data = league.to_json(lang)
    return {"visitor": page(data, lang, ""), "organiser": page(data, lang, "token"), "read-only": page(data, lang),
            "sign-in": login_page(lang), "sign-in refused": login_page(lang, "Wrong password.")}


@pytest.mark.parametrize("lang", ["en", "it"])
def test_no_league_page_reloads_itself_and_each_has_the_kits_head_and_a_main_landmark(league, lang):
    for name, html in served(league, lang).items():
        assert not REFRESH.search(html), f"{name}: reloads itself"
        assert f'<html lang="{lang}">' in html and '<meta name="viewport"' in html, name
        assert len(re.findall(r"<main\b", html)) == 1 and "<header>" in html, f"{name}: no main landmark"
        assert '<script type="module" src="/kit.js"></script>' in html, name


def test_the_league_page_is_kept_up_to_date_by_fetch_into_a_polite_live_region(league):
    html = page(league.to_json("it"), "it", "")
    assert re.search(r'<main data-kit data-every="60"', html)
    assert re.search(r'<p id="kit-said" class="visually-hidden" aria-live="polite" data-said="[^"]+">', html)
    assert 'id="season" data-part' in html


def test_the_league_pages_numbers_and_dates_are_marked_for_intl_with_its_time_zone_said_once(league):
    html = page(league.to_json("it"), "it", "")
    ratings = [line["rating"] for line in league.to_json("it")["season"]]
    for rating in ratings:
        assert f'<data value="{rating}" data-digits="2">' in html
    assert not re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d", html)  # no ISO date written by the server
    heard = [cafe for cafe in league.to_json("it")["cafes"] if cafe["heard"] is not None]
    # the two cafés of the league; the stranger's refused night says nothing trusted of when it was heard (issue 76.5)
    assert len(re.findall(r"<time datetime=\"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\">", html)) == len(heard) == 2
    zone = re.search(r'data-zone="([^"]+)"', html).group(1)
    assert html.count(zone) == 2  # where the dates are written in, and said once to the reader
    assert "Gli orari sono nel fuso orario" in html


@pytest.mark.parametrize("lang, said", [
    ("en", "the night's café should be one of the league's cafés"),
    ("it", "il locale della serata dovrebbe essere uno dei locali della lega"),
])
def test_a_refused_night_is_explained_in_words_never_by_a_programs_field_path(league, lang, said):
    html = unescape(page(league.to_json(lang), lang, ""))
    assert said in html
    assert "league.night" not in html


def fetched(url: str, cookie: str = "") -> str:
    with urllib.request.urlopen(urllib.request.Request(url, headers={"Cookie": cookie} if cookie else {}),
                                timeout=10) as answer:
        return answer.read().decode()


def test_the_fleet_dashboards_pages_have_the_kits_head_and_a_main_landmark_and_never_reload():
    from pi_table.config import broker as broker_config
    from pi_table.fleet.dashboard import Dashboard, hash_password

    dashboard = Dashboard(broker_config("mqtt://127.0.0.1:1"), "127.0.0.1", 0, hash_password("café-tables-2026"),
                          client_id="kit-dashboard")
    dashboard.start()
    try:
        signed = urllib.request.Request(f"{dashboard.url}/login", data=b"password=caf%C3%A9-tables-2026")

        class Kept(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *args, **kwargs):  # the session's cookie, not the page it leads to
                return None

        with pytest.raises(urllib.error.HTTPError) as answer:
            urllib.request.build_opener(Kept).open(signed, timeout=10)
        cookie = answer.value.headers["Set-Cookie"].split(";", 1)[0]
        for name, html in (("login", fetched(f"{dashboard.url}/login")), ("tables", fetched(dashboard.url, cookie))):
            assert not REFRESH.search(html), name
            assert len(re.findall(r"<main\b", html)) == 1 and "<header>" in html, f"{name}: no main landmark"
            assert '<script type="module" src="/kit.js"></script>' in html, name
    finally:
        dashboard.stop()
