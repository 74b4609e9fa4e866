"""Issue 76, item 11: two teams the director keeps apart (friends who came together) are never
paired while another pairing exists; said when none does; an event of the night's journal, so a
restart and the host's followers keep it, and undone the same way."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pi_table.night.book import Book
from pi_table.night.events import NightRefused
from pi_table.night.pairing import key, met, propose

from helpers_fleet import heard, host_and_follower
from helpers_staff import Staff
from helpers_tables import StaffTable

STAFF = "staff · 1a2b3c"
KEY = "RRRRRRRRRBBBBBBBBNNNNNNNA"


def pairs_of(made) -> set[frozenset[str]]:
    return {key(*pair.teams) for pair in made.pairs}


def test_two_neighbours_kept_apart_are_paired_with_others():
    points = {"A": 2, "B": 2, "C": 1, "D": 1}
    assert key("A", "B") in pairs_of(propose(3, list("ABCD"), points, Counter(), met([]), ["1", "2"], {}))
    made = propose(3, list("ABCD"), points, Counter(), met([]), ["1", "2"], {}, apart={key("A", "B")})
    assert key("A", "B") not in pairs_of(made) and len(made.pairs) == 2


def pairable(names: list[str], seats: int, apart: set[frozenset[str]]) -> bool:
    """Whether some choice of ``seats`` teams of ``names`` pairs with no pair kept apart (brute force)."""
    def matched(rest: list[str]) -> bool:
        if not rest:
            return True
        first = rest[0]
        return any(key(first, other) not in apart and matched([n for n in rest[1:] if n != other]) for other in rest[1:])

    return any(matched(list(playing)) for playing in itertools.combinations(names, seats))


@settings(settings.get_profile("tables"))  # a brute force over who plays, in memory
@given(st.integers(2, 8), st.integers(1, 4), st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7)), max_size=12),
       st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7)), max_size=20),
       st.lists(st.integers(0, 3), min_size=8, max_size=8))
def test_no_round_pairs_teams_kept_apart_while_a_pairing_without_them_exists(n, tables, kept, history, points):
    names = [f"T{i}" for i in range(n)]
    apart = {key(names[a % n], names[b % n]) for a, b in kept if a % n != b % n}
    before = met((names[a % n], names[b % n]) for a, b in history if a % n != b % n)
    made = propose(2, names, {name: points[i] for i, name in enumerate(names)}, Counter(), before,
                   [str(t) for t in range(tables)], {}, apart=apart)
    seats = min(tables, n // 2) * 2
    assert len(made.pairs) * 2 == seats  # never a round short: the pairing is made, apart pairs or not
    if pairable(names, seats, apart):
        assert not pairs_of(made) & apart
    else:
        assert pairs_of(made) & apart


def test_the_book_keeps_two_teams_apart_until_undone_and_says_when_it_cannot(tmp_path):
    book = Book(tmp_path)
    book.open("Friday", ["codenames"], ["1"])
    for name in ("Owls", "Foxes", "Moles"):
        book.join(name)
    with pytest.raises(NightRefused, match="two different teams"):
        book.apart("Owls", "Owls", STAFF)
    with pytest.raises(NightRefused, match="no team Bats"):
        book.apart("Owls", "Bats", STAFF)
    book.apart("Owls", "Foxes", STAFF)
    with pytest.raises(NightRefused, match="kept apart already"):
        book.apart("Foxes", "Owls", STAFF)
    assert book.current().apart == {key("Owls", "Foxes")}
    [entry] = book.current().history
    assert entry["event"] == "apart" and entry["teams"] == ["Foxes", "Owls"] and entry["by"] == STAFF
    book.withdraw("Moles", STAFF)
    made = book.propose()  # only the two friends left: paired, and the director told so
    assert pairs_of(made) == {key("Owls", "Foxes")}
    assert book.current().to_json()["warnings"] == [{"kind": "apart", "table": "1", "teams": list(made.pairs[0].teams)}]
    book.reinstate("Moles", STAFF)
    assert key("Owls", "Foxes") not in pairs_of(book.propose())
    assert not [w for w in book.current().to_json()["warnings"] if w["kind"] == "apart"]
    book.stop()
    again = Book(tmp_path)  # a restart folds the journal: still apart
    assert again.current().apart == {key("Owls", "Foxes")}
    again.unapart("Owls", "Foxes", STAFF)
    with pytest.raises(NightRefused, match="not kept apart"):
        again.unapart("Owls", "Foxes", STAFF)
    assert again.current().apart == set() and [e["event"] for e in again.current().history][-1] == "unapart"
    again.stop()


def test_a_follower_keeps_the_teams_apart_as_its_host_does(tmp_path):
    host, at_host, follower = host_and_follower(tmp_path, ("Owls", "Foxes", "Moles", "Bats"))
    host.apart("Owls", "Foxes", STAFF)
    plan = heard(at_host)  # through the fleet's schema, as the broker hands it over
    assert follower.follow("t1", plan)
    assert follower.book.current().apart == {key("Owls", "Foxes")}
    assert follower.book.current().history == host.current().history
    host.unapart("Foxes", "Owls", STAFF)
    assert follower.follow("t1", heard(at_host)) and follower.book.current().apart == set()
    follower.book.stop()
    host.stop()


def test_the_staff_page_keeps_two_teams_apart_behind_its_checks(tmp_path):
    table = StaffTable(tmp_path, KEY)
    try:
        staff = Staff(table.base)
        assert staff.call("POST", "/staff/api/night/apart", {"teams": ["Owls", "Foxes"]})[0] == 401
        staff.login()
        staff.call("POST", "/staff/api/night/open", {"name": "Friday", "games": ["codenames"], "tables": ["1"]})
        for name in ("Owls", "Foxes", "Moles"):
            staff.call("POST", "/staff/api/night/join", {"team": name})
        assert staff.call("POST", "/staff/api/night/apart", {"teams": ["Owls", "Foxes"]}, csrf="wrong")[0] == 403
        status, answer = staff.call("POST", "/staff/api/night/apart", {"teams": "Owls"})
        assert status == 400 and "expected" in answer["error"]
        status, answer = staff.call("POST", "/staff/api/night/apart", {"teams": ["Owls", "Foxes"]})
        assert status == 200 and answer["night"]["apart"] == [["Foxes", "Owls"]]
        assert answer["night"]["history"][-1]["by"].startswith("staff · ")
        status, answer = staff.call("POST", "/staff/api/night/apart", {"teams": ["Owls", "Foxes"]})
        assert status == 409 and "apart already" in answer["error"]
        status, answer = staff.call("POST", "/staff/api/night/unapart", {"teams": ["Owls", "Foxes"]})
        assert status == 200 and answer["night"]["apart"] == []
    finally:
        table.close()
