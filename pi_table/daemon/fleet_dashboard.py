"""The fleet's dashboard on this table (issue 50, 3): with ``[fleet] dashboard_port`` set (the
owner's, from the staff page), the table serves the café's dashboard itself beside its pages, so
no other machine is needed. It reads the table's broker as the dashboard's own user (the ACL's
``dashboard``, which may read every table), its login is the owner's passphrase (read each
time, so a new one takes over at once), and it answers over the table's https where the staff
page does. A dashboard that cannot start is a fault the staff page names; the table plays on.
"""

from __future__ import annotations

import logging
import ssl
from typing import TYPE_CHECKING

from ..engine.phrase import N_

if TYPE_CHECKING:
    from ..config import Config
    from ..fleet.dashboard import Dashboard
    from ..web.auth import Throttle

log = logging.getLogger("pi_table.daemon")
NO_DASHBOARD = N_("the fleet's dashboard cannot be shown on port {port} ({error}): choose another port on the staff "
                  "page under Fleet dashboard; the table plays on")
FAULTS = (NO_DASHBOARD,)
"""The templates of the faults this module reports (tests/test_troubleshooting.py collects them)."""


def open_dashboard(config: Config, tls: ssl.SSLContext | None, owner_tries: Throttle | None = None) -> Dashboard | None:
    """The dashboard ``config`` asks for, started (OSError, ValueError or a Refusal when it cannot
    be: its port taken, its broker's password file unreadable); None when it asks for none. Its
    login checks the owner's passphrase: its tries are counted in ``owner_tries``, the staff
    page's door to it, so every door to the passphrase draws on one budget (issue 58, 5c)."""
    shown = config.dashboard
    if shown is None:
        return None
    from ..fleet.dashboard import Dashboard  # a table that shows no dashboard never loads it
    from ..web.auth import KeptSecret
    from ..web.roles import OWNER_FILE

    owner = KeptSecret(config.paths.journal_dir / OWNER_FILE, "the owner's passphrase")
    dashboard = Dashboard(shown.broker, config.web.host, shown.port, owner, config.language,
                          client_id=shown.broker.username or "dashboard", cafe_tables=config.fleet.cafe_tables, tls=tls,
                          tries=owner_tries)
    dashboard.start()
    log.info("the fleet's dashboard at %s, reading %s:%d as %s", dashboard.url, shown.broker.host, shown.broker.port,
             shown.broker.username)
    return dashboard
