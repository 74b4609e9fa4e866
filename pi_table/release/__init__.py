"""Releases and updates: each version installed beside the others in its own environment,
switched to in one step, kept once the table is healthy on it and rolled back by itself when not
(``layout``); release bundles for tables without internet (``bundle``); the acts the root
helper does for the service (``requests``, ``helper``), among them the network's (``network``) and
a table's first boot (``first_boot``); and what the staff page reads and asks
(``desk``: ``state``, ``last_act``, ``offered``, ``ask``). docs/cafe/updates.md tells an owner how it goes.
"""

from .desk import ask, last_act, offered, state
from .layout import ReleaseError

__all__ = ["ReleaseError", "ask", "last_act", "offered", "state"]
