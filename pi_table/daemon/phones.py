"""The phones' pages of the running table: the companion server with the staff page and its
sections, opened once the table has said it is ready (loading the web server takes longer than
all the rest of the start, and the table plays without phones meanwhile), its https on the
configured certificate or the table's own (renewed when the table's address changes), and the
fleet's dashboard the owner asked this table to show.
"""

from __future__ import annotations

import ipaddress
import logging
import socket
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..engine.phrase import N_, Phrase, Text
from ..errors import PiTableError

if TYPE_CHECKING:  # the staff page's parts load with the pages, after READY
    import ssl
    from collections.abc import Callable

    from ..config import Config
    from ..fleet.dashboard import Dashboard
    from ..hal import Event
    from ..table.loop import EventLoop
    from ..web.auth import LineCode, Throttle
    from .devices import Devices
    from .first_boot import FirstBoot
    from .notify import Notifier
    from .staff_desk import Table as DeskTable
    from .staff_parts import Running

    class Table(Running, DeskTable, Protocol):
        """What the phones' pages take of the running table (``run.Daemon``), and hand its staff page."""

        config: Config
        hal: str
        devices: Devices
        loop: EventLoop
        first_boot: FirstBoot | None
        notifier: Notifier
        line_code: LineCode | None
        fingerprint: str | None
        dashboard: Dashboard | None

        def post(self, event: Event) -> None: ...

        def act(self, game_id: str, role: str, text: str) -> Text | None: ...

        def note_fault(self, name: str, fault: Phrase) -> None: ...

        def in_loop(self, fn: Callable[[], object]) -> bool: ...

log = logging.getLogger("pi_table.daemon")
NO_CERTIFICATE = N_("the companion's certificate cannot be used ({error}): phones cannot join; check [web] tls_cert and "
                    "tls_key, then restart the table")
NO_OWN_CERTIFICATE = N_("the table's own certificate in {folder} cannot be made or used ({error}): the staff and "
                        "set-up pages answer this machine alone until it can; check that openssl is installed and the "
                        "folder is the service's, or move the damaged table.key and table.crt aside for new ones, then "
                        "restart the table")
NO_PORT = N_("the companion cannot listen on port {port} ({error}): phones cannot join; free the port or choose another "
             "([web] port), then restart the table")
FAULTS = (NO_CERTIFICATE, NO_OWN_CERTIFICATE, NO_PORT)
"""The templates of the faults this module reports: docs/cafe/troubleshooting.md has an entry for each."""


class Phones:
    """The phones' pages of ``daemon``'s table, once started; ``done`` is set once they are up,
    failed or off."""

    def __init__(self, daemon: Table) -> None:
        self.daemon = daemon
        self.done = threading.Event()
        self.starting: threading.Thread | None = None
        self._own_tls_context: ssl.SSLContext | None = None  # the staff pages' https on the table's own certificate
        self._certified = ""  # the address the table's own certificate was last made for
        self._renewal = threading.Lock()  # one renewal at a time

    def start(self, state: str) -> None:
        """The phones' pages, once the table has said it is ready: loading the web server takes
        longer than all the rest of the start, and the table plays without phones meanwhile.
        systemd's status then says how the phones fared."""
        if not self.daemon.config.web.enabled:
            self.daemon.devices.health["companion"] = "off"
            self._settled(state, "off")
            return
        self.daemon.devices.health["companion"] = "starting"
        self.starting = threading.Thread(target=self._open, args=(state,), name="companion-start", daemon=True)
        self.starting.start()

    def _open(self, state: str) -> None:
        web, journal_dir = self.daemon.config.web, self.daemon.config.paths.journal_dir
        try:
            from ..ui.words import Cards
            from ..web import Companion, CompanionScreen, Tokens
            from ..web.auth import Recovery
            from ..web.seats import SeatLinks
            from ..web.sections import staff_page
            from .staff_desk import StaffDesk
            from .staff_parts import parts

            tokens = Tokens.kept_in(journal_dir)
            self.daemon.recovery = self.daemon.recovery or Recovery()
            helper = self.daemon.helper
            assert helper is not None  # made at READY, before the pages
            staff = staff_page(StaffDesk(self.daemon), parts(self.daemon, helper), journal_dir,
                               self.daemon.config.staff_session_s)  # every section, given its part
            self.daemon.line_code = staff.line_code  # the screen shows it while new phones wait in line (_show_notice)
            tls = _tls(web.tls_cert, web.tls_key) if web.tls_cert else None
            if tls is not None:
                from ..release.first_boot import fingerprint

                self.daemon.fingerprint = fingerprint(Path(web.tls_cert))
            staff_tls = None if tls is not None or _only_here(web.host) else self._own_tls()
            companion = Companion(web.host, web.port, act=self.daemon.act, base_url=web.url,
                                  advertise=self.advertised, proof=tokens.proof,
                                  opened_file=journal_dir / "companion.opened", language=self.daemon.config.language,
                                  staff=staff, tls=tls, staff_tls=staff_tls, staff_port=web.tls_port,
                                  header_timeout_s=web.request_s, body_timeout_s=web.request_s, cards=self.daemon.cards)
            staff.announce = companion.announce  # the spectators' pages hear of a section's changes (the night's)
            companion.start()
        except Exception as e:  # noqa: BLE001 (a taken port, a broken install: the table plays without phones)
            why = e.strerror if isinstance(e, OSError) and e.strerror else e
            fault = (Phrase.of(NO_CERTIFICATE, error=str(why)) if isinstance(e, _TlsError) else
                     Phrase.of(NO_PORT, port=web.port, error=str(why)))
            self.daemon.devices.not_working("companion", str(why))
            log.error("%s", fault)
            self._settled(state, "not working")
            self.daemon.in_loop(lambda: self.daemon.note_fault("companion", fault))
            return

        def attach() -> None:  # in the loop's thread, which owns the screen; once only
            if self.daemon.companion is not None:
                return
            seats = SeatLinks(journal_dir / "companion.released")
            words = self.daemon.config.words if self.daemon.hal == "sim" else None  # the real table has physical cards
            cards = None if words is None else Cards(words, self.daemon.session.rng)
            screen = CompanionScreen(self.daemon.devices.screen, companion, tokens, seats, cards)
            screen.join(self.daemon.post)
            self.daemon.devices.screen = self.daemon.loop.screen = screen
            self.daemon.companion = companion
            self.daemon.devices.health["companion"] = "ok"
            if self.daemon.first_boot is not None:  # the set-up page's address, now that it has one
                self.daemon.first_boot.refresh()
            self.daemon.loop.show()

        if not self.daemon.in_loop(attach):  # the table stopped first
            companion.stop()
            self.done.set()
            return
        log.info("companion pages at %s", companion.base_url)
        self._settled(state, f"at {companion.base_url}")
        self._open_dashboard(tls or staff_tls, staff.owner.door.throttle)  # one budget for the owner's passphrase

    def _own_tls(self) -> ssl.SSLContext | None:
        """The staff and set-up pages' https, with the table's own certificate (``tls`` beside
        the configuration: the first boot makes it, and the service makes it for a table that
        has none); None, told as a fault, when it cannot be had: the staff page then answers this
        machine alone, for no secret goes over the network in clear."""
        from ..release.first_boot import TLS, TLS_CERT, TLS_KEY, fingerprint

        source = self.daemon.config.source
        if source is None:  # a developer's table with no file: nowhere of its own to keep a key
            log.warning("no configuration file, so no certificate of the table's own: the staff page answers this "
                        "machine alone")
            return None
        folder = source.parent / TLS
        self._certified = address = _reachable_address(self.daemon.config.web.host)
        self._certify(folder, address)
        try:
            context = _tls(str(folder / TLS_CERT), str(folder / TLS_KEY))
            self.daemon.fingerprint = fingerprint(folder / TLS_CERT)
        except (_TlsError, OSError, ValueError) as e:
            fault = Phrase.of(NO_OWN_CERTIFICATE, folder=str(folder), error=str(e))
            log.error("%s", fault)
            self.daemon.in_loop(lambda: self.daemon.note_fault("https", fault))
            return None
        log.info("the staff pages over https, the table's certificate's SHA-256 %s", self.daemon.fingerprint)
        self._own_tls_context = context
        return context

    @staticmethod
    def _certify(folder: Path, address: str) -> None:
        """The table's own certificate in ``folder`` made, or renewed, for ``address``."""
        from ..release.first_boot import own_certificate

        phones = () if ipaddress.ip_address(address).is_loopback else (address,)  # where phones are led to
        for made in own_certificate(folder, addresses=phones):
            log.info("the table's own certificate: %s", made)

    def advertised(self) -> str:
        """How phones reach the table now (the pages ask every few seconds, for their links and
        the https address they lead to). When it changed while the table runs (a new lease, a
        cable plugged in), the table's own certificate is renewed for it, away from the pages'
        loop, and the https pages take it without a restart (issue 58, 8)."""
        address = _reachable_address(self.daemon.config.web.host)
        if self._own_tls_context is not None and address != self._certified:
            self._certified = address
            threading.Thread(target=self._renew_certificate, args=(address,), name="certificate", daemon=True).start()
        return address

    def _renew_certificate(self, address: str) -> None:
        import ssl

        from ..release.first_boot import TLS, TLS_CERT, TLS_KEY, fingerprint

        assert self.daemon.config.source is not None and self._own_tls_context is not None  # as _own_tls made it
        folder = self.daemon.config.source.parent / TLS
        with self._renewal:
            self._certify(folder, address)
            try:  # new handshakes get it; the old certificate serves on if it cannot be had
                self._own_tls_context.load_cert_chain(str(folder / TLS_CERT), str(folder / TLS_KEY))
                self.daemon.fingerprint = fingerprint(folder / TLS_CERT)
            except (ssl.SSLError, OSError, ValueError) as e:
                log.error("the table's own certificate for %s cannot be used (%s): the one before serves on", address, e)
                return
        log.info("the staff pages' certificate renewed for %s: SHA-256 %s", address, self.daemon.fingerprint)

    def _open_dashboard(self, tls: ssl.SSLContext | None, owner_tries: Throttle) -> None:
        """The fleet's dashboard on this table, when the owner asked for one (``fleet_dashboard``);
        its login's tries counted in ``owner_tries``, with the staff page's of the owner's passphrase."""
        from .fleet_dashboard import NO_DASHBOARD, open_dashboard

        try:
            self.daemon.dashboard = open_dashboard(self.daemon.config, tls, owner_tries)
        except Exception as e:  # noqa: BLE001 (a taken port, an unreadable password: the table plays on)
            shown = self.daemon.config.dashboard
            fault = Phrase.of(NO_DASHBOARD, port=0 if shown is None else shown.port,
                              error=e.strerror if isinstance(e, OSError) and e.strerror else str(e))
            log.error("%s", fault)
            self.daemon.in_loop(lambda: self.daemon.note_fault("dashboard", fault))

    def _settled(self, state: str, how: str) -> None:
        self.daemon.notifier.status(f"{state}; phones: {how}")
        self.done.set()

    def wait(self, timeout: float = 10.0) -> bool:
        """Whether the companion has come up, failed or is off (tests and tools that need it)."""
        return self.done.wait(timeout)


class _TlsError(PiTableError):
    """The companion's certificate or key would not load."""


def _tls(cert: str, key: str) -> ssl.SSLContext:
    """A server context for https with this certificate (and chain) and key; _TlsError saying why not."""
    import ssl

    from ..config.machine import server_tls  # as the checker tried them

    try:
        return server_tls(cert, key)
    except (OSError, ssl.SSLError, ValueError) as e:
        raise _TlsError(getattr(e, "strerror", None) or getattr(e, "reason", None) or str(e)) from None


def _only_here(host: str) -> bool:
    """Whether the pages listen on this machine alone (``localhost``, a loopback address): then
    no secret typed on them crosses a network, and they need no https of their own."""
    try:
        return ipaddress.ip_address("127.0.0.1" if host == "localhost" else host).is_loopback
    except ValueError:
        return False


def _reachable_address(host: str) -> str:
    """How phones reach this machine: its address on the network the default route leaves by
    (a UDP socket's connect sends nothing, it only picks the route), or, with no route, on the
    table's own Wi-Fi while it is open, or the host it listens on."""
    if host not in ("0.0.0.0", "::", ""):
        return host
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))  # TEST-NET-1: never reached, only routed
        address: str = probe.getsockname()[0]
    except OSError:
        from ..release.network import hotspot_address  # a table with no route: perhaps its own Wi-Fi

        address = hotspot_address() or "127.0.0.1"
    finally:
        probe.close()
    return address
