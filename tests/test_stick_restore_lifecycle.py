"""The way back from a dead SD card as a lifecycle (Hypothesis's stateful testing, DESIGN.md's
"Ways back"): random sequences of a stick's backups put on it (a good one, one sealed with the
owner's backup key, a hostile one, a damaged one, a link to root's files), copies asked from the
set-up page's desk (the newest, or a name of the listing), the set-up's restore (with the key, another
or none), and starts healthy or not. The set-up's own code runs
(``daemon.first_boot.StickCopy``: ``ask``, ``seen``; ``FirstBoot._restore``; the root helper's
``from_stick``; ``daemon.backup``'s start, keep and roll back); the oracle is the rules: the stick
is only read, nothing but a copy of a regular file it lists reaches the backups folder and never
over another, no root's file is read, a backup that will not do (a sealed one without its key
among them) stages nothing and the fresh table stays as it was, the key given with a staged restore
is the one the table keeps, and a staged restore is kept on a healthy start or gives the fresh
state back."""

from __future__ import annotations

import io
import shutil
import tempfile
import threading
from functools import cache
from pathlib import Path
from types import SimpleNamespace

from hypothesis import event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from pi_table.config import load_config
from pi_table.daemon import backup, sealed
from pi_table.daemon.first_boot import FirstBoot
from pi_table.engine.phrase import Phrase
from pi_table.release import helper, requests, stick
from pi_table.release.first_boot import new_pending
from pi_table.sim.machine import USB_STICK

from helpers_machine import StickMachine, old_table_backup
from helpers_release import member, packed
from helpers_staff import STAFF_CONFIG

DAYS = [f"nightly-202611{day}-040000.tar.gz" for day in (21, 22)]
SHOWN = "the backup the page shows"  # what the set-up sends, the page's own; or another name, by hand
SECRET = b"root's own secret"
KEY, OTHER_KEY = "ABCD-EFGH-JKMN-PQRS-TVWX", "0000-1111-2222-3333-4444"


@cache
def kinds() -> dict[str, bytes]:
    """What a stick may hold under a nightly name: the café's old table's backup, plain or sealed with
    the owner's key, a hostile one, a damaged one."""
    folder = Path(tempfile.mkdtemp(prefix="old-table-"))
    good = old_table_backup(folder)
    shutil.rmtree(folder)
    return {"good": good, "sealed": sealed.seal(good, sealed.key_given(KEY)),
            "hostile": packed([(member("journal/staff.pin", kind=b"2", link="/etc/shadow"), b"")]),
            "damaged": good[: len(good) // 2]}


class StickRestore(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.folder = Path(tempfile.mkdtemp(prefix="stick-restore-"))
        self.stick = StickMachine(self.folder, USB_STICK)
        self.on_stick = self.stick.mounted / stick.FOLDER
        self.on_stick.mkdir(parents=True)
        (self.folder / "secret").write_bytes(SECRET)
        self.config = self.stick.config  # the root helper's too: the backups folder beside its journal folder
        self.config.write_text(STAFF_CONFIG)  # the journal folder where the old table's settings keep it
        self.journal, self.backups = self.config.parent / "journal", self.config.parent / "backups"
        self.journal.mkdir()
        (self.journal / "companion.secret").write_bytes(b"the fresh table's own")
        self.fresh = self.files()
        self.boot = FirstBoot(self.daemon(), new_pending(), self.journal, home=self.stick.helper.releases.home)
        self.put: dict[str, bytes | None] = {}  # the stick's backups by name: their bytes, None for a link
        self.copied: dict[str, bytes] = {}  # what the model says reached the backups folder
        self.phase = "waiting"  # then "staged", "kept" or "rolled back"
        self.key: str | None = None  # the backup key the set-up was given with the restore it staged

    def daemon(self) -> SimpleNamespace:
        """The running table as the set-up's desk sees it; its root helper asked through the spool
        and its stick's unit run as systemd runs it."""
        spool = self.folder / "spool"

        def ask(act: str, **args: object) -> None:
            requests.write(spool, {"act": act, **args})
            request = requests.take(spool)
            assert request["act"] == stick.FROM_ACT
            helper.from_stick(self.stick.helper, request["backup"], io.StringIO())

        config = load_config(self.config)
        return SimpleNamespace(config=config, companion=None, fingerprint=None, line_code=None,
                               devices=SimpleNamespace(screen=None),
                               helper=SimpleNamespace(ask=ask), restarts=SimpleNamespace(
                                   lock=threading.Lock(), working=list))

    def files(self) -> dict[str, bytes]:
        """The table's own: its settings and the journal folder's files (but the backup key the set-up keeps)."""
        return {"config.toml": self.config.read_bytes(),
                **{path.name: path.read_bytes() for path in self.journal.iterdir()
                   if path.is_file() and path.name != "backup.key"}}

    def teardown(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)

    # --- the steps ---

    @initialize()
    def the_cafes_stick(self) -> None:
        """The stick the table wrote its nights to: the old table's backup on it."""
        self.put_on_the_stick(DAYS[0], "good")

    @rule(name=st.sampled_from(DAYS), kind=st.sampled_from(["good", "sealed", "hostile", "damaged", "link"]))
    def put_on_the_stick(self, name: str, kind: str) -> None:
        path = self.on_stick / name
        path.unlink(missing_ok=True)
        if kind == "link":
            path.symlink_to(self.folder / "secret")
            self.put[name] = None
        else:
            path.write_bytes(kinds()[kind])
            self.put[name] = kinds()[kind]

    @precondition(lambda self: self.phase == "waiting")
    @rule(choice=st.sampled_from(["newest", *DAYS]))
    def look_on_the_stick(self, choice: str) -> None:
        listed = sorted((name for name, data in self.put.items() if data is not None), reverse=True)
        problem = self.boot.stick.ask(choice)
        shown = self.boot.stick.seen("en")
        if choice != "newest" and choice not in shown.get("listed", []) and problem is not None:
            return  # the page asks only for a name the last listing gave: nothing asked
        assert problem is None
        name = listed[0] if choice == "newest" and listed else choice
        if name not in listed:
            assert shown["outcome"] == "failed"
            return
        data = self.put[name]
        assert data is not None
        if name in self.copied and self.copied[name] != data:
            assert shown["outcome"] == "failed" and "not replaced" in shown["why"]
            return
        self.copied[name] = data
        good = data in (kinds()["good"], kinds()["sealed"])
        event(f"a {'good' if good else 'bad'} backup copied")
        assert shown["listed"] == listed
        assert shown["outcome"] == ("done" if good else "refused"), shown
        assert shown.get("sealed", False) == (data == kinds()["sealed"])  # its key asked before it is read

    @precondition(lambda self: self.phase == "waiting")
    @rule(name=st.sampled_from([SHOWN, SHOWN, *DAYS]), key=st.sampled_from([None, KEY, KEY, OTHER_KEY]))
    def set_up_from_it(self, name: str, key: str | None) -> None:
        shown = self.boot.stick.seen("en")
        name = shown.get("backup") or DAYS[0] if name == SHOWN else name
        problems = self.boot._restore(name, key)
        if shown.get("outcome") == "done" and shown.get("backup") == name and (not shown.get("sealed") or key == KEY):
            assert problems == [], problems
            self.phase, self.key = "staged", key
            event(f"a {'sealed' if shown.get('sealed') else 'plain'} restore staged from the stick")
        else:
            assert problems and all(isinstance(problem, Phrase) for problem in problems)
            if shown.get("sealed") and shown.get("backup") == name:
                event("a sealed backup refused: no key, or another")

    @precondition(lambda self: self.phase == "staged")
    @rule(healthy=st.booleans())
    def start(self, healthy: bool) -> None:
        config = load_config(self.config)
        started, under = backup.starting(config)
        assert under is not None
        if healthy:
            backup.keep(started)
            self.phase = "kept"
            event("kept on a healthy start")
        else:
            backup.roll_back_later(started, under, Phrase.of("the LED strip is not working"))
            backup.starting(load_config(self.config))
            self.phase = "rolled back"
            event("rolled back on an unhealthy start")

    # --- what always holds ---

    @invariant()
    def the_stick_is_only_read(self) -> None:
        for name, data in self.put.items():
            path = self.on_stick / name
            assert path.is_symlink() if data is None else path.read_bytes() == data

    @invariant()
    def only_copies_of_what_the_stick_listed_reach_the_backups_folder(self) -> None:
        nightly = {path.name: path for path in backup.kept(self.backups)}
        assert set(nightly) == set(self.copied)
        for name, path in nightly.items():
            assert not path.is_symlink() and path.read_bytes() == self.copied[name]
            assert path.stat().st_mode & 0o777 == 0o600
        assert all(SECRET not in path.read_bytes() for path in self.backups.rglob("*") if path.is_file())

    @invariant()
    def the_table_keeps_the_key_given_with_the_restore_it_staged_alone(self) -> None:
        kept = sealed.kept_key(load_config(self.config))
        assert kept == (None if self.key is None else sealed.key_given(self.key))

    @invariant()
    def the_table_is_as_the_rules_say(self) -> None:
        now = self.files()
        if self.phase in ("waiting", "staged"):  # nothing of the fresh table changes before the start
            assert now == self.fresh
            assert (backup.pending(load_config(self.config)) is not None) == (self.phase == "staged")
        elif self.phase == "kept":
            assert b'language = "it"' in now["config.toml"] and "staff.pin" in now
            assert backup.pending(load_config(self.config)) is None
        else:  # the fresh state back; the PIN the restore brought is never taken away (a restore never removes it)
            assert now["config.toml"] == self.fresh["config.toml"]
            assert "staff.pin" in now
            assert not [name for name in now if name.endswith(".jsonl")]
            assert backup.pending(load_config(self.config)) is None
            assert (backup.folder(load_config(self.config)) / "restore.rolled-back").exists()


StickRestore.TestCase.settings = settings(settings.get_profile("tables"), stateful_step_count=20)
test_a_stick_restore_lifecycle_keeps_the_rules = StickRestore.TestCase
