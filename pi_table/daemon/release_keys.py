"""The releases' keyring on the staff page (``web.keys.KeysRoom``): the keys listed as the
keyring has them (its files are readable by all: a public key is public), and a key added or
revoked asked of the root helper, which alone may write /etc/pi-table-keys.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..engine.phrase import Phrase, Text
from ..release import ReleaseError, state
from ..release.keys import KEYRING, Keyring
from ..release.layout import HOME
from ..ui.i18n import say

if TYPE_CHECKING:
    from .staff_desk import StaffDesk

log = logging.getLogger("pi_table.daemon")
ACTS = ("keys-add", "keys-revoke")


class ReleaseKeys:
    """The keyring at ``keyring`` and the helper's notes in ``home``; ``desk`` asks the helper."""

    def __init__(self, desk: StaffDesk, keyring: Keyring | None = None, home: Path = HOME) -> None:
        self.desk, self.keyring, self.home = desk, keyring or Keyring(KEYRING), home

    def view(self, lang: str) -> dict[str, Any]:
        """Each key (its name, fingerprint, whether revoked) and the last key act asked of the
        helper (its why in ``lang``); a keyring that cannot be read says so."""
        try:
            keys = [{"name": key.name, "fingerprint": key.fingerprint, "revoked": key.revoked}
                    for key in self.keyring.listed()]
            problem = None
        except ReleaseError as e:
            keys, problem = [], e.why
        last = state(self.home)["last"]
        if last is not None and last.get("act") in ACTS:
            last = {key: last.get(key) for key in ("act", "name", "fingerprint", "outcome", "at")} | {
                "why": (last.get("why") or {}).get(lang)}
        else:
            last = None
        view: dict[str, Any] = {"keys": keys, "last": last}
        if problem is not None:
            view["problem"] = say(Phrase.of(problem["template"], **problem["fields"]), lang)
        return view

    def add(self, name: str, key: str) -> Text | None:
        log.warning("the release key %r asked to be added", name)
        return self._ask("keys-add", name=name, key=key.strip())

    def revoke(self, name: str) -> Text | None:
        log.warning("the release key %r asked to be revoked", name)
        return self._ask("keys-revoke", name=name)

    def _ask(self, act: str, **args: str) -> Text | None:
        return self.desk.ask(act, **args)
