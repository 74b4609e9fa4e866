"""The root helper as the table's parts ask it (``release.helper``): the staff page's sections
that leave it a request (the keys, the network, the Wi-Fi, power, an update), and the table's own
work that needs root (the security updates, a backup to a stick, the set-up's Wi-Fi). One object,
made by the daemon at READY, before the notifications and the pages, which each of them is given.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..engine.phrase import Phrase, Text


class RootHelper:
    """The helper's spool (where it takes requests, and an uploaded bundle), its ``home`` (where it
    notes how its acts ended), the keyring an uploaded bundle is checked against, and why no helper
    would take a request on this machine (``helper_missing``): the staff page's ``web.staff.Helper``."""

    def __init__(self, spool: Path | None = None) -> None:
        from ..release.desk import helper_missing  # made at READY: not before it
        from ..release.keys import Keyring
        from ..release.layout import HOME
        from ..release.requests import SPOOL

        self.spool = spool or SPOOL
        self.home = HOME
        self.helper_missing: Callable[[], Text | None] = helper_missing
        self.keyring = Keyring()

    def ask(self, act: str, **args: object) -> Text | None:
        """Leave ``act`` for the root helper (``release.ask``); None, or why it could not be asked."""
        from ..release import ReleaseError, ask  # the staff's power and update buttons only

        if (missing := self.helper_missing()) is not None:
            return missing
        try:
            ask(act, spool=self.spool, **args)
        except ReleaseError as e:
            return Phrase.of(e.why["template"], **e.why["fields"])
        except OSError as e:
            return Phrase.of("the computer's helper cannot be asked ({error}): is pi-table-helper.path installed? "
                             "(systemd/install.sh installs it)", error=e.strerror or str(e))
        return None
