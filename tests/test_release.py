"""Releases and updates (pi_table/release): the version's one source, the lock, the layout and its
atomic switches, a trial's starts, bundles and the helper's requests refused when they are not
exactly what is expected. Under the real systemd: tests/test_container.py."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

from pi_table.release import ReleaseError, bundle, desk, helper, requests
from pi_table.release.layout import CURRENT, ORIGIN, PREVIOUS, Releases, release_name

from helpers import require_tools

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


# --- the version and the lock ---------------------------------------------------------------------


def test_the_changelogs_newest_section_is_pyprojects_version():
    sections = re.findall(r"^## (\S+)", (ROOT / "CHANGELOG.md").read_text(encoding="utf-8"), re.MULTILINE)
    assert sections and sections[0] == PROJECT["project"]["version"]
    assert len(sections) == len(set(sections))


def test_the_lock_pins_every_dependency_at_or_above_pyprojects_floor():
    pins = {}
    for line in (ROOT / "requirements.lock").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            pins[name.lower().replace("_", "-")] = Version(version)
    wanted = [*PROJECT["project"]["dependencies"], *PROJECT["project"]["optional-dependencies"]["leds-pi4"]]
    for requirement in map(Requirement, wanted):
        name = requirement.name.lower().replace("_", "-")
        assert name in pins, f"requirements.lock pins no {name}: .venv/bin/python -m pi_table.release.lock"
        assert requirement.specifier.contains(pins[name]), f"{name} {pins[name]} is below {requirement}"


# --- the layout ------------------------------------------------------------------------------------


def made(releases: Releases, name: str) -> str:
    """A complete release without pip: its folder, venv and note."""
    folder = releases.releases / name
    (folder / "venv/bin").mkdir(parents=True)
    (folder / "release.json").write_text(json.dumps({"release": name, "version": name.split("-")[0], "extras": ""}))
    return name


def test_a_first_switch_is_no_trial_and_a_second_keeps_the_first_as_previous(tmp_path):
    releases = Releases(tmp_path)
    first = made(releases, "0.1.0-aaaaaaaa")
    assert releases.switch(first, "install") is None
    assert os.readlink(tmp_path / CURRENT) == f"releases/{first}" and not (tmp_path / PREVIOUS).exists()
    assert os.readlink(tmp_path / "venv") == "current/venv"
    second = made(releases, "0.2.0-bbbbbbbb")
    trial = releases.switch(second, "update")
    assert trial is not None and trial.release == second and trial.back_to == first
    assert releases.linked(CURRENT) == second and releases.linked(PREVIOUS) == first
    assert releases.trial() == trial
    assert not list(tmp_path.glob(".*.new"))  # each link renamed into place


def test_an_older_installs_venv_folder_becomes_the_link(tmp_path):
    releases = Releases(tmp_path)
    (tmp_path / "venv/bin").mkdir(parents=True)
    releases.switch(made(releases, "0.1.0-aaaaaaaa"), "install")
    assert os.readlink(tmp_path / "venv") == "current/venv"


def test_a_half_built_release_is_never_linked(tmp_path):
    releases = Releases(tmp_path)
    (releases.releases / "0.3.0-cccccccc/venv").mkdir(parents=True)  # no release.json: pip never finished
    with pytest.raises(ReleaseError, match="not completely built"):
        releases.switch("0.3.0-cccccccc", "update")
    assert releases.linked(CURRENT) is None


def test_a_trial_that_did_not_survive_its_start_is_rolled_back_at_the_next(tmp_path):
    releases = Releases(tmp_path)
    old = made(releases, "0.1.0-aaaaaaaa")
    releases.switch(old, "install")
    new = made(releases, "0.2.0-bbbbbbbb")
    releases.switch(new, "update")
    assert releases.starting() == f"trying {new} (start 1)"
    assert releases.starting() == f"rolled back to {old}"  # a second start, not proven
    assert releases.linked(CURRENT) == old and releases.trial() is None
    note = releases.note("rolled-back.json")
    assert note["release"] == new and note["to"] == old
    said = desk.state(tmp_path)["rolled_back"]["why"]
    assert said["en"] == f"the table stopped before it was healthy on release {new}"
    assert said["it"] != said["en"]


def test_a_proven_trial_is_kept_and_a_note_of_a_switch_that_never_happened_is_dropped(tmp_path):
    releases = Releases(tmp_path)
    old = made(releases, "0.1.0-aaaaaaaa")
    releases.switch(old, "install")
    new = made(releases, "0.2.0-bbbbbbbb")
    trial = releases.switch(new, "update")
    assert trial is not None
    releases.starting()
    releases.prove(trial)
    assert releases.trial() is None and releases.linked(CURRENT) == new
    state = desk.state(tmp_path)
    assert state["running"]["version"] == "0.2.0" and state["previous"]["release"] == old
    assert state["last"]["outcome"] == "done"
    releases.write_note("trial.json", {**trial.__dict__, "release": made(releases, "0.3.0-cccccccc")})
    assert releases.starting() == "a trial whose switch never happened is dropped"  # power cut before the switch
    assert releases.linked(CURRENT) == new


@pytest.mark.parametrize(("answer", "proven"), [
    ({"version": "0.2.0", "healthy": {"ok": True, "why": None}}, True),
    ({"version": "0.2.0", "healthy": {"ok": False, "why": "the phones' pages do not answer"}}, False),
    ({"version": "0.2.0"}, True),  # a daemon from before the health answer: its version alone, as then
    ({"version": "0.1.0", "healthy": {"ok": True, "why": None}}, False),  # still the old release answering
    ({"version": "0.2.0", "healthy": ["ok"]}, False),
    ("not json", False),
])
def test_a_trial_is_proven_only_when_its_status_answers_its_version_healthy(tmp_path, answer, proven):
    releases = Releases(tmp_path)
    releases.switch(made(releases, "0.1.0-aaaaaaaa"), "install")
    trial = releases.switch(made(releases, "0.2.0-bbbbbbbb"), "update")
    assert trial is not None
    releases.starting()
    said = json.dumps(answer) if isinstance(answer, dict) else answer
    status = [sys.executable, "-c", f"print({said!r})"]  # exit 0: the answer itself must be read
    outcome = helper.started(releases, status, proof_s=0.2)
    assert (releases.trial() is None) == proven, outcome
    assert outcome.endswith("is proven") == proven


def test_the_helper_prefers_the_proven_release_during_a_trial(tmp_path):
    """systemd/pi-table-helper runs the helper from previous while a trial is on: a release that
    cannot even import is still rolled back."""
    releases = Releases(tmp_path)
    script = [str(ROOT / "systemd/pi-table-helper"), "starting"]
    environment = {**os.environ, "PI_TABLE_HOME": str(tmp_path)}
    for name in ("0.1.0-aaaaaaaa", "0.2.0-bbbbbbbb"):
        made(releases, name)
        python = releases.venv(name) / "bin/python"
        python.write_text(f"#!/bin/sh\necho {name} \"$@\"\n")
        python.chmod(0o755)
        releases.switch(name, "install")
        assert subprocess.run(script, env=environment, capture_output=True, text=True).stdout.startswith("0.1.0-aaaaaaaa")
    assert subprocess.run(script, env=environment, capture_output=True, text=True).stdout.startswith("0.1.0-aaaaaaaa")


def test_a_release_is_named_by_its_version_and_its_trees_digest(tmp_path):
    tree = source_tree(tmp_path / "tree", "1.2.3")
    name = release_name(tree)
    assert re.fullmatch(r"1\.2\.3-[0-9a-f]{8}", name)
    assert release_name(tree, "leds-pi4") != name
    (tree / "pi_table.py").write_text("changed = True\n")
    assert release_name(tree) != name


# --- bundles -------------------------------------------------------------------------------------------


SECRET = "the-contents-nobody-may-see"


def source_tree(folder: Path, version: str) -> Path:
    folder.mkdir(parents=True)
    (folder / "pyproject.toml").write_text(f'[project]\nname = "pi-table"\nversion = "{version}"\n')
    (folder / "requirements.lock").write_text("segno==1.6.6\n")
    (folder / "pi_table.py").write_text(f"# {SECRET}\n")
    return folder


def test_a_bundle_unpacks_to_its_source_and_version(tmp_path):
    out = tmp_path / "b.tar.gz"
    manifest = bundle.make(source_tree(tmp_path / "tree", "0.2.0"), out)
    assert manifest["version"] == "0.2.0" and bundle.peek(out) == "0.2.0"
    version, source, wheels = bundle.unpack(out, tmp_path / "unpacked")
    assert version == "0.2.0" and (source / "pi_table.py").read_text() == f"# {SECRET}\n" and wheels is None


def test_pi_table_bundle_makes_one_of_a_checkout_and_says_what_it_holds(tmp_path):
    out = tmp_path / "b.tar.gz"
    done = subprocess.run([sys.executable, "-m", "pi_table", "bundle", "--source", str(source_tree(tmp_path / "t", "0.2.0")),
                           "-o", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"{out}: pi-table 0.2.0, 3 source files, 0 wheels\n"
    refused = subprocess.run([sys.executable, "-m", "pi_table", "bundle", "--source", str(tmp_path)],
                             capture_output=True, text=True)
    assert refused.returncode == 2 and "no checkout" in refused.stderr


def tampered(tmp_path: Path, change) -> Path:
    """A good bundle rewritten member by member, ``change(info, data)`` returning what to write instead
    (a list of (info, data)), to make each thing a bundle must not be."""
    good = tmp_path / "good.tar.gz"
    bundle.make(source_tree(tmp_path / "tree", "0.2.0"), good)
    bad = tmp_path / "bad.tar.gz"
    with tarfile.open(good) as source, tarfile.open(bad, "w:gz") as out:
        for info in source:
            data = source.extractfile(info).read() if info.isfile() else b""
            for new_info, new_data in change(info, data):
                if new_info.isfile():
                    new_info.size = len(new_data)
                out.addfile(new_info, io.BytesIO(new_data) if new_info.isfile() else None)
    return bad


def renamed(name):
    def change(info, data):
        if info.name == "source/pi_table.py":
            info.name = name
        return [(info, data)]
    return change


def linked_member(info, data):
    if info.name == "source/pi_table.py":
        info.type, info.linkname, info.size = tarfile.SYMTYPE, "/etc/shadow", 0
    return [(info, data)]


def manifest_with(**changes):
    def change(info, data):
        if info.name == "manifest.json":
            data = json.dumps({**json.loads(data), **changes}).encode()
        return [(info, data)]
    return change


def content_changed(info, data):
    return [(info, data + b"# changed\n" if info.name == "source/pi_table.py" else data)]


@pytest.mark.parametrize("change, said", [
    (renamed("../../etc/cron.d/evil"), "is outside the bundle; expected a path under source/ or wheels/"),
    (renamed("/etc/cron.d/evil"), "is outside the bundle; expected a path under source/ or wheels/"),
    (renamed("elsewhere/pi_table.py"), "is outside the bundle; expected a path under source/ or wheels/"),
    (linked_member, "is a link or a device; expected plain files"),
    (manifest_with(name="not-pi-table"), "has a wrong name; expected pi-table"),
    (manifest_with(version="latest"), "has a wrong version; expected a version such as 1.2.3"),
    (manifest_with(version="0.9.0"), "says version 0.9.0, its pyproject.toml 0.2.0; expected the same"),
    (manifest_with(format=7), "has a wrong format; expected 1"),
    (content_changed, "does not match its manifest's checksum"),
])
def test_a_bundle_that_is_not_exactly_what_pi_table_bundle_makes_is_refused_saying_why(tmp_path, change, said):
    with pytest.raises(ReleaseError) as refused:
        bundle.unpack(tampered(tmp_path, change), tmp_path / "unpacked")
    assert said in str(refused.value)
    assert SECRET not in str(refused.value) and "/etc/shadow" not in str(refused.value)
    assert not (tmp_path / "etc").exists()


def test_absurd_sizes_and_non_bundles_are_refused(tmp_path, monkeypatch):
    good = tmp_path / "good.tar.gz"
    bundle.make(source_tree(tmp_path / "tree", "0.2.0"), good)
    monkeypatch.setattr(bundle, "MAX_MEMBER", 10)
    with pytest.raises(ReleaseError, match="unpacks to more than"):
        bundle.unpack(good, tmp_path / "a")
    monkeypatch.setattr(bundle, "MAX_BUNDLE", 10)
    with pytest.raises(ReleaseError, match=r"the bundle is 0 MB; a bundle is at most 0 MB"):
        bundle.unpack(good, tmp_path / "b")
    text = tmp_path / "text.tar.gz"
    text.write_text(SECRET)
    monkeypatch.undo()
    with pytest.raises(ReleaseError, match="not a pi-table bundle") as refused:
        bundle.unpack(text, tmp_path / "c")
    assert SECRET not in str(refused.value)


# --- the helper's requests -------------------------------------------------------------------------


@pytest.mark.parametrize("request_, said", [
    ({"act": "shell", "command": "rm -rf /"}, "unknown request 'shell'"),
    ({"act": "update", "from": "http://evil"}, "unknown request 'update'"),
    ({"act": "reboot", "delay": 5}, "the request reboot takes nothing more, not 'delay'"),
    ({"act": "update", "from": "bundle", "bundle": "../../etc/shadow"}, "a file name in the spool folder"),
    ({"act": "update", "from": "bundle"}, "takes bundle, not nothing"),
    (["reboot"], "a JSON object with an act"),
])
def test_a_request_that_is_not_one_of_the_three_acts_is_refused(tmp_path, request_, said):
    with pytest.raises(ReleaseError, match=re.escape(said)):
        requests.check(request_)
    with pytest.raises(ReleaseError):
        requests.write(tmp_path, request_)
    assert not (tmp_path / requests.REQUEST).exists()


def stub(tmp_path: Path) -> tuple[str, Path]:
    calls = tmp_path / "calls"
    program = tmp_path / "systemctl"
    program.write_text(f'#!/bin/sh\necho "$@" >> {calls}\n')
    program.chmod(0o755)
    return str(program), calls


def test_a_reboot_asked_by_the_service_reaches_systemctl_reboot(tmp_path):
    spool, releases = tmp_path / "spool", Releases(tmp_path / "home")
    desk.ask("reboot", spool=spool)
    systemctl, calls = stub(tmp_path)
    assert helper.act(releases, spool, (systemctl,)) == 0
    assert calls.read_text() == "reboot\n" and not (spool / requests.REQUEST).exists()
    desk.ask("poweroff", spool=spool)
    helper.act(releases, spool, (systemctl,))
    assert calls.read_text() == "reboot\npoweroff\n"
    assert desk.state(releases.home)["last"]["act"] == "poweroff"


@pytest.mark.parametrize("write", [
    lambda path: path.symlink_to("/etc/shadow"),
    lambda path: path.write_text(SECRET),
    lambda path: path.write_text('{"act": "reboot"}' + " " * requests.MAX_REQUEST),
    lambda path: path.write_text('{"act": "systemctl", "args": ["isolate", "rescue"]}'),
])
def test_the_helper_refuses_a_bad_request_file_logs_it_and_runs_nothing(tmp_path, write, capsys):
    spool, releases = tmp_path / "spool", Releases(tmp_path / "home")
    spool.mkdir()
    write(spool / requests.REQUEST)
    systemctl, calls = stub(tmp_path)
    assert helper.act(releases, spool, (systemctl,)) == 1
    assert not calls.exists() and not os.path.lexists(spool / requests.REQUEST)
    said = capsys.readouterr().err
    assert said.startswith("refused: ") and SECRET not in said
    last = desk.state(releases.home)["last"]
    assert last["outcome"] == "refused" and SECRET not in json.dumps(last)


def test_an_update_not_newer_than_the_running_release_is_refused_and_noted(tmp_path):
    spool, releases = tmp_path / "spool", Releases(tmp_path / "home")
    releases.switch(made(releases, "0.2.0-aaaaaaaa"), "install")
    spool.mkdir()
    bundle.make(source_tree(tmp_path / "tree", "0.2.0"), spool / "old.tar.gz")
    assert desk.offered(releases.home, spool) == []
    desk.ask("update", spool=spool, from_="bundle", bundle="old.tar.gz")
    systemctl, calls = stub(tmp_path)
    assert helper.act(releases, spool, (systemctl,)) == 1
    last = desk.state(releases.home)["last"]
    assert last["outcome"] == "failed" and last["why"]["en"] == "version 0.2.0 is not newer than the running 0.2.0"
    assert not calls.exists() and not (spool / "old.tar.gz").exists()
    bundle.make(source_tree(tmp_path / "newer", "0.3.0"), spool / "new.tar.gz")
    assert desk.offered(releases.home, spool) == [{"from": "bundle", "bundle": "new.tar.gz", "version": "0.3.0"}]
    desk.ask("update", spool=spool, from_="repository")
    assert helper.act(releases, spool, (systemctl,)) == 1
    assert desk.state(releases.home)["last"]["why"]["en"].startswith("this table was not installed from a git repository")


def test_a_table_installed_from_a_clone_is_offered_the_newer_version_pushed_to_its_branch(tmp_path):
    """install notes the clone's repository and branch (none for a tree that is no clone, or a
    detached head); the staff page's offer clones the branch's head and offers it once it is newer.
    Under the real systemd, with the repository served over git://: tests/test_container.py."""
    require_tools("git")

    def git(where: Path, *args: str) -> None:
        subprocess.run(["git", "-c", "user.name=pi-table", "-c", "user.email=test@pi-table.invalid", *args],
                       cwd=where, check=True, capture_output=True)

    upstream = source_tree(tmp_path / "upstream", "0.2.0")
    git(upstream, "init", "-q", "-b", "main")
    git(upstream, "add", "-A")
    git(upstream, "commit", "-q", "-m", "0.2.0")
    git(tmp_path, "clone", "-q", "--bare", str(upstream), "origin.git")
    git(tmp_path, "clone", "-q", str(tmp_path / "origin.git"), "clone")
    origin = helper.git_origin(tmp_path / "clone")
    assert origin == {"repository": str(tmp_path / "origin.git"), "branch": "main"}
    assert helper.git_origin(source_tree(tmp_path / "plain", "0.2.0")) is None
    releases, spool = Releases(tmp_path / "home"), tmp_path / "spool"
    releases.switch(made(releases, "0.2.0-aaaaaaaa"), "install")
    releases.write_note(ORIGIN, origin)
    assert desk.offered(releases.home, spool) == []
    (upstream / "pyproject.toml").write_text('[project]\nname = "pi-table"\nversion = "0.3.0"\n')
    git(upstream, "commit", "-q", "-a", "-m", "0.3.0")
    git(upstream, "push", "-q", str(tmp_path / "origin.git"), "main")
    assert desk.offered(releases.home, spool) == [{"from": "repository", "version": "0.3.0", "branch": "main"}]
    assert desk.offered(releases.home, spool, repository=False) == []
    git(tmp_path / "clone", "checkout", "-q", "--detach")
    assert helper.git_origin(tmp_path / "clone") is None
