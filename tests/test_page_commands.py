"""A page never sends the owner to a terminal for what it can do itself (issue 62, 2): a bundle
refused for want of a key said ``sudo /opt/pi-table/helper keys add ...`` on the page that has
**Add a key**. Every message a page can show (the catalogue's, from the pages' code and the table's
parts that answer them) is read: one that names a command is one whose command no page can run,
listed here with its reason."""

from __future__ import annotations

import re

from pi_table.cli import GROUPS
from pi_table.ui import messages

SHOWN = ("pi_table/web/", "pi_table/release/desk.py", "pi_table/release/helper.py", "pi_table/release/keys.py", "pi_table/release/bundle.py",
         "pi_table/daemon/staff_desk.py", "pi_table/daemon/root_helper.py", "pi_table/daemon/health_desk.py",
         "pi_table/daemon/care_desk.py", "pi_table/daemon/offsite_desk.py", "pi_table/daemon/backup.py", "pi_table/daemon/owner_files.py",
         "pi_table/daemon/first_boot.py", "pi_table/daemon/selftest.py", "pi_table/daemon/checkup.py",
         "pi_table/daemon/restarts.py", "pi_table/daemon/run.py", "pi_table/drivers/touchboard.py",
         "pi_table/hal/tuning.py")
"""Where the messages a page shows are made: the pages' code and scripts, and the parts of the
table that answer them (an update's bundle and its keys, the root helper's acts, a backup and a restore, the set-up, the
self-test and the tuning the staff page runs, a change of settings, the faults and the touch
board's advice the Health section shows)."""
COMMANDS = "|".join(re.escape(name) for names in GROUPS.values() for name in sorted(names, key=len, reverse=True))
COMMAND = re.compile(rf"\bsudo |\bsystemctl\b|/opt/pi-table/|\bpi-table (?:{COMMANDS})\b")
"""A command a terminal runs: as root, a unit's, the root helper's, or one of pi-table's own."""
NO_PAGE = {
    "no owner's passphrase is set": "the page cannot give the owner's power to whoever holds the staff PIN",
    "No owner's passphrase is set": "the page cannot give the owner's power to whoever holds the staff PIN",
    "no staff PIN is set": "without a PIN nobody can log in to the page to set one",
    "Set one on the table's computer with: sudo pi-table set-staff-pin": "the login page: nobody is logged in",
    "this table has no root helper": "the helper is what the page's root acts go through; it is installed as root",
    "the root helper is not watching for requests": "the same: the page asks the helper, which is not there",
    "the security updates cannot be started": "their timer is installed by the install script, as root",
    "no root helper to set them": "the set-up page: the helper is installed as root on the computer",
    "Mosquitto is not installed on this table": "a package installed as root by the install script",
    "may be changed by a user other than root": "only root can take the keyring back; the page's acts go through it",
    "pi-table bundle": "a bundle is made and signed on the maker's computer, with the maker's key, not on a table",
    "turn SPI on": "the Pi's firmware setting: raspi-config as root, then a reboot",
    "expected one pi-table set-staff-pin makes": "describes the file expected, which the page cannot make",
    "expected one, as pi-table backup makes": "describes the file expected",
    "expected one made by pi-table backup": "describes the file expected",
    "is not a pi-table backup's": "describes the file expected",
    "pi-table status cannot reach the table": "names what fails, the staff's terminal command, not what to do",
    "no configuration file": "a table with no configuration file: the page changes that file, it cannot make one",
    "unknown key {key}": "only a request made by hand names a key the page does not list",
}
"""Each message kept with a command, by a part of its words, and why no page can do it."""


def shown_messages() -> list[str]:
    catalog = messages.read_catalogue(messages.TEMPLATE)
    return sorted({message.id if isinstance(message.id, str) else message.id[0] for message in catalog if message.id
                   and any(path.startswith(SHOWN) for path, _ in message.locations)})


def test_no_message_a_page_shows_sends_the_owner_to_a_terminal_for_what_a_page_does():
    shown = shown_messages()
    assert any("Add a key" == text for text in shown)  # the pages' own words are read
    sending = [text for text in shown if COMMAND.search(text) and not any(part in text for part in NO_PAGE)]
    assert sending == [], "a page's message names a command where a page has the action:\n" + "\n".join(sending)


def test_each_kept_command_is_still_said_by_a_page():
    shown = [text for text in shown_messages() if COMMAND.search(text)]
    assert [part for part in NO_PAGE if not any(part in text for text in shown)] == []
