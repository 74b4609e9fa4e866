"""``pi-table fleet``: the fleet's dashboard; ``pi-table league``: a league's page. Their servers (aiohttp,
MQTT) are imported when they run."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    fleet = commands.add_parser("fleet", help="the fleet's dashboard: every table reporting to an MQTT broker, on one page")
    fleet.add_argument("--broker", help="mqtt[s]://USER[:PASSWORD]@HOST[:PORT]: a broker user that may read pi-table/#")
    fleet.add_argument("--broker-password-file", default="",
                       help="a file holding that user's password (kept off the command line, which ps shows)")
    fleet.add_argument("--password-file", type=Path, required=True,
                       help="the page's login: the password's hash, which --set-password writes")
    fleet.add_argument("--set-password", action="store_true",
                       help="ask for the page's password (or read it from stdin), write its hash to --password-file, exit")
    _served(fleet, 8025)
    fleet.add_argument("--lang", choices=("en", "it"), default="en", help="the page's language (default: en)")
    fleet.add_argument("--ca", default="", help="mqtts: the CA file the broker's certificate is checked against")
    fleet.add_argument("--cert", default="", help="mqtts: a client certificate, for a broker that asks for one")
    fleet.add_argument("--key", default="", help="mqtts: the client certificate's private key")
    fleet.add_argument("--password-in-clear", action="store_true",
                       help="let the broker's password go over mqtt:// (no TLS) to another machine: a network you trust only")
    fleet.add_argument("--cafe-tables", default="",
                       help="the café's tables, as [fleet] cafe_tables lists them (t1,bar-2): only they host a night the "
                            "page shows or tell of its games (default: the host and tables of the night the most tables play; a "
                            "night another table hosts is shown apart)")
    fleet.add_argument("--client-id", default="pi-table-fleet",
                       help="its MQTT client id; the broker keeps its events under it while it is away")
    fleet.set_defaults(func=_fleet)
    league = commands.add_parser("league", help="a league's page: every café's closed nights, bridged to the league's "
                                                "MQTT broker, in one season's standings")
    league.add_argument("--broker",
                        help="mqtt[s]://league@HOST[:PORT]: the league broker's user that reads every café's nights")
    league.add_argument("--broker-password-file", default="",
                        help="a file holding that user's password (kept off the command line, which ps shows)")
    league.add_argument("--ca", default="", help="mqtts: the CA file the league broker's certificate is checked against")
    league.add_argument("--password-in-clear", action="store_true",
                        help="let the broker's password go over mqtt:// (no TLS) to another machine: a network you trust only")
    league.add_argument("--league", help="the league's name, as in its topics league/<league>/...")
    league.add_argument("--roster", type=Path, default=None,
                        help="the organiser's roster (TOML): [cafes] each café's tables, [teams] each team's code and "
                             "name, [merged] teams merged, [scoring]")
    league.add_argument("--password-file", type=Path, default=None,
                        help="the organiser's sign-in on the page, to merge teams in --roster: the password's hash, "
                             "which --set-password writes (default: no sign-in, the page is read-only)")
    league.add_argument("--set-password", action="store_true",
                        help="ask for the organiser's password (or read it from stdin), write its hash to "
                             "--password-file, exit")
    _served(league, 8026)
    league.add_argument("--lang", choices=("en", "it"), default="en",
                        help="the page's language when the phone asks for none it has (default: en)")
    league.set_defaults(func=_league)


def _served(page: argparse.ArgumentParser, port: int) -> None:
    """Where a page's server listens and how its password crosses the network (web.auth's one
    login policy): the same options for the fleet's dashboard and the league's page."""
    page.add_argument("--host", default="127.0.0.1", help="the address the page listens on (default: 127.0.0.1)")
    page.add_argument("--port", type=int, default=port, help=f"its TCP port (default: {port}; 0: any free port)")
    page.add_argument("--tls-cert", default="", help="the page's own https: its certificate (and chain)")
    page.add_argument("--tls-key", default="", help="the page's own https: the certificate's private key")
    page.add_argument("--proxy", default="",
                      help="the address of the reverse proxy that serves the page over https (its X-Forwarded-Proto, "
                           "-Host and -For are believed from that address alone); without it or --tls-cert, the "
                           "password is taken from this machine alone")


def _fleet(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from ..fleet import dashboard

    return dashboard.main(parser, args)


def _league(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from ..fleet import league_page

    return league_page.main(parser, args)
