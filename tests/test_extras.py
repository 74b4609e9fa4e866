"""What the Pi installs: only what the table runs. The board emulator's MPR121 driver (which
pulls Blinka, pyftdi, pyusb and more) is an extra the tests take and the table does not, and
the emulator says so where it is missing."""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

from pi_table import cli
from pi_table.cli.output import EXIT_UNAVAILABLE

PROJECT = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text(encoding="utf-8"))
EXTRAS = PROJECT["project"]["optional-dependencies"]


def names(requirements: list[str]) -> set[str]:
    return {requirement.split(">")[0].split("[")[0].split("=")[0].strip() for requirement in requirements}


def test_the_mpr121_driver_is_only_in_the_emulator_extra_which_the_tests_include():
    assert "adafruit-circuitpython-mpr121" not in names(PROJECT["project"]["dependencies"])
    assert "adafruit-circuitpython-mpr121" in names(EXTRAS["emulator"])
    own = [requirement for requirement in EXTRAS["test"] if requirement.startswith("pi-table[")]
    assert any("emulator" in requirement[len("pi-table["):-1].split(",") for requirement in own), own


def test_the_installer_takes_no_extra_that_would_hide_debians_gpiozero_or_pygame():
    installer = (Path(__file__).resolve().parent.parent / "systemd" / "install.sh").read_text(encoding="utf-8")
    # the extras the release of the checkout is installed with (extras=...)
    assert set(re.findall(r'^\s*(?:\[.*\] && )?extras=(\S+)$', installer, re.MULTILINE)) == {'""', "leds-pi4"}


def test_emulate_board_without_the_driver_says_what_installs_it(monkeypatch, capsys):
    """From a checkout's .venv, the command of the checkout that installs it (issue 50: the owner
    was told to fetch a package); elsewhere, the pip of the Python that runs pi-table."""
    monkeypatch.setitem(sys.modules, "adafruit_mpr121", None)  # as on a table: not installed
    monkeypatch.delitem(sys.modules, "pi_table.sim.emulator", raising=False)
    checkout = Path(cli.__file__).resolve().parents[2]
    monkeypatch.setattr(sys, "prefix", str(checkout / ".venv"))
    assert cli.main(["emulate-board"]) == EXIT_UNAVAILABLE
    assert capsys.readouterr().err == (
        f"pi-table emulate-board: needs adafruit_mpr121; ./dev play installs it into .venv (once, from {checkout})\n")
    monkeypatch.setattr(sys, "prefix", "/opt/pi-table/current/venv")
    assert cli.main(["emulate-board"]) == EXIT_UNAVAILABLE
    assert f"{sys.executable} -m pip install 'pi-table[emulator]'" in capsys.readouterr().err


def test_dev_play_installs_what_the_simulated_table_s_commands_need():
    """./dev play makes the .venv of docs/cafe/try.md: the screen, and the board's emulator."""
    dev = (Path(__file__).resolve().parent.parent / "dev").read_text(encoding="utf-8")
    play = re.search(r'^  play\) shift; setup "\[(.*)\]"', dev, re.MULTILINE)
    assert play and set(play.group(1).split(",")) == {"screen", "emulator"}
