"""The SD image's builder (pi_table/image) refuses what it must not build from before it writes
anything: a base image that is not the one its SHA-256 names, a bundle not signed with a key the
image accepts or not made for the Pi; it takes the installer and the units from the checkout at
the bundle's commit; its entry in Raspberry Pi Imager's OS list has what Imager needs. The image
itself, built and booted on an emulated Pi: tests/test_emulated_pi.py."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pytest

from pi_table.image import ImageError, build, imager
from pi_table.image.build import release_of
from pi_table.release import ReleaseError

from helpers import require_tools
from helpers_release import BUNDLE_SECRET, signed_bundle


@pytest.fixture
def maker(tmp_path) -> tuple[Path, Path]:
    """A maker's Ed25519 key and its public half."""
    require_tools("ssh-keygen")
    key = tmp_path / "keys" / "maker"
    key.parent.mkdir()
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "maker", "-f", str(key)], check=True)
    return key, key.with_name("maker.pub")


def git(where: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=pi-table", "-c", "user.email=test@pi-table.invalid", *args],
                          cwd=where, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def checkout(tmp_path) -> tuple[Path, str]:
    """A checkout with the files the image takes from it, committed; its commit."""
    require_tools("git")
    folder = tmp_path / "checkout"
    (folder / "systemd/image").mkdir(parents=True)
    (folder / "release-keys").mkdir()
    (folder / "pyproject.toml").write_text('[project]\nname = "pi-table"\nversion = "0.2.0"\n')
    (folder / "systemd/install.sh").write_text("# the installer at the bundle's commit\n")
    (folder / "systemd/image/setup.sh").write_text("# the image's set-up at the bundle's commit\n")
    git(folder, "init", "-q", "-b", "main")
    git(folder, "add", "-A")
    git(folder, "commit", "-q", "-m", "0.2.0")
    return folder, git(folder, "rev-parse", "HEAD")


def test_a_base_that_is_not_the_one_its_sha256_names_is_refused_and_nothing_is_written(tmp_path, maker):
    base = tmp_path / "raspios.img.xz"
    base.write_bytes(b"not the image that was published" * 1000)
    published = hashlib.sha256(b"the image that was published").hexdigest()
    out = tmp_path / "out" / "pi-table.img.xz"
    with pytest.raises(ImageError) as refused:
        build(base, published, signed_bundle(tmp_path / "b.tar.gz", maker[0]), out, tmp_path)
    said = str(refused.value)
    assert published in said and hashlib.sha256(base.read_bytes()).hexdigest() in said
    assert "download it again" in said
    assert not out.parent.exists()


@pytest.mark.parametrize("given, said", [
    ("12ab", "64 hexadecimal digits"),
    ("", "64 hexadecimal digits"),
])
def test_a_sha256_that_is_no_sha256_is_refused_saying_what_one_is(tmp_path, given, said):
    base = tmp_path / "base.img"
    base.write_bytes(b"\0" * 1024)
    with pytest.raises(ImageError, match=said):
        build(base, given, tmp_path / "b.tar.gz", tmp_path / "pi-table.img.xz", tmp_path)


@pytest.mark.parametrize("name", ["pi-table.img", "pi-table.xz", "pi-table.img.zip"])
def test_the_image_is_written_compressed_as_imager_opens_it(tmp_path, name):
    with pytest.raises(ImageError, match=r"NAME\.img\.xz, NAME\.img\.gz or NAME\.img\.zst"):
        build(tmp_path / "base.img", "0" * 64, tmp_path / "b.tar.gz", tmp_path / name, tmp_path)


def test_a_bundle_signed_with_a_key_the_image_does_not_accept_is_refused(tmp_path, maker, checkout):
    source, commit = checkout
    stranger = tmp_path / "keys" / "stranger"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(stranger)], check=True)
    signed = signed_bundle(tmp_path / "b.tar.gz", stranger, commit=commit)
    (tmp_path / "scratch").mkdir()
    with pytest.raises(ReleaseError, match="which this table does not accept"):
        release_of(signed, source, (maker[1],), tmp_path / "scratch")
    unsigned = signed_bundle(tmp_path / "u.tar.gz", None, commit=commit)
    (tmp_path / "again").mkdir()
    with pytest.raises(ReleaseError, match="the release is not signed"):
        release_of(unsigned, source, (maker[1],), tmp_path / "again")
    assert not (tmp_path / "scratch/tree").exists() and not (tmp_path / "again/tree").exists()


@pytest.mark.parametrize("changes, said", [
    ({"target": "here"}, "the bundle's wheels are for here, not for the Pi"),
    ({"commit": "HEAD"}, "names no commit"),
])
def test_a_bundle_that_is_not_for_the_pi_or_names_no_commit_is_refused(tmp_path, maker, checkout, changes, said):
    signed = signed_bundle(tmp_path / "b.tar.gz", maker[0], **{"commit": checkout[1], **changes})
    (tmp_path / "scratch").mkdir()
    with pytest.raises(ImageError, match=said) as refused:
        release_of(signed, checkout[0], (maker[1],), tmp_path / "scratch")
    assert BUNDLE_SECRET not in str(refused.value)


def test_the_image_takes_the_installer_from_the_checkout_at_the_bundles_commit(tmp_path, maker, checkout):
    """What the maker changed since (a new installer, not committed, or a later commit) is not the
    release's, and stays out; the key the maker accepts travels in release-keys/."""
    source, commit = checkout
    (source / "systemd/install.sh").write_text("# changed after the bundle was made\n")
    git(source, "commit", "-q", "-am", "later")
    (source / "systemd/image/setup.sh").write_text("# changed and not committed\n")
    signed = signed_bundle(tmp_path / "b.tar.gz", maker[0], commit=commit)
    (tmp_path / "scratch").mkdir()
    manifest, tree = release_of(signed, source, (maker[1],), tmp_path / "scratch")
    assert manifest["signer"] == "maker" and manifest["version"] == "0.2.0"
    assert (tree / "systemd/install.sh").read_text() == "# the installer at the bundle's commit\n"
    assert (tree / "systemd/image/setup.sh").read_text() == "# the image's set-up at the bundle's commit\n"
    assert (tree / "release-keys/maker.pub").read_text() == maker[1].read_text()


def test_a_bundle_of_a_working_tree_needs_the_checkout_still_at_its_commit(tmp_path, maker, checkout):
    source, commit = checkout
    git(source, "commit", "-q", "--allow-empty", "-m", "later")
    signed = signed_bundle(tmp_path / "b.tar.gz", maker[0], commit=f"{commit}-dirty")
    (tmp_path / "scratch").mkdir()
    with pytest.raises(ImageError, match="is no longer at that commit"):
        release_of(signed, source, (maker[1],), tmp_path / "scratch")


def test_the_os_list_entry_has_what_raspberry_pi_imager_needs_and_asks_for_its_customisation(tmp_path):
    import datetime

    item = imager.entry(version="0.2.0", url="https://example.org/pi-table-0.2.0.img.xz", icon="file:///i.svg",
                        extract_size=3 * 2**30, extract_sha256="a" * 64, download_size=2**29,
                        download_sha256="b" * 64, day=datetime.date(2026, 11, 26))
    listing = tmp_path / "pi-table.json"
    imager.write(listing, item)
    [written] = json.loads(listing.read_text())["os_list"]
    # the schema's required fields (rpi-imager doc/json-schema/os-list-schema.json), of their types
    for key, kind in {"name": str, "description": str, "icon": str, "url": str, "extract_size": int,
                      "extract_sha256": str, "image_download_size": int, "release_date": str}.items():
        assert isinstance(written[key], kind), key
    assert written["init_format"] == "systemd"  # Bookworm's customisation: firstrun.sh on the boot partition
    assert written["release_date"] == "2026-11-26" and written["name"] == "pi-table 0.2.0"
    assert set(written["devices"]) == {"pi3-64bit", "pi4-64bit", "pi5-64bit"}
    assert imager.ICON.startswith("<svg") and imager.ICON.count("<rect") == 26  # the board and its 25 cards
