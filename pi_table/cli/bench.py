"""``pi-table bench``: run a benchmark and print its figures; each benchmark is imported when run."""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping

from .options import whole_number


def _most_tables() -> int:
    """The fleet benchmark's limit, read when --tables is given: the benchmark loads the fleet's broker."""
    from ..bench.fleet import MAX_TABLES

    return MAX_TABLES


def _most_cafes() -> int:
    """The league benchmark's limit: each café is a Mosquitto of its own."""
    from ..bench.league import MAX_CAFES

    return MAX_CAFES


def _most_phones() -> int:
    """The latency benchmark's limit (the companion's cap), read when --phones is given."""
    from ..bench.latency import MAX_PHONES

    return MAX_PHONES


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    bench = commands.add_parser("bench", help="run a benchmark and print its figures")
    bench.add_argument("what", choices=("engine", "latency", "render", "daemon", "fleet", "night", "league", "cards", "clues"))
    bench.add_argument("--games", type=int, default=2000, help="engine: random games per variant (default: 2000)")
    bench.add_argument("--touches", type=whole_number("--touches", 2), default=200,
                       help="latency: guesses to time (default: 200)")
    bench.add_argument("--phones", type=whole_number("--phones", 1, _most_phones), default=None,
                       help="latency: time again with this many phones on the companion's event stream, and compare")
    bench.add_argument("--cpu", type=whole_number("--cpu", 1, lambda: 100), default=None, metavar="PERCENT",
                       help="latency, cards, clues: hold the table's process to this share of one core while timing, as "
                            "systemd's CPUQuota= would (a slower or busier Pi; needs root)")
    bench.add_argument("--idle", type=float, default=10.0, help="render: seconds of idle CPU measured (default: 10)")
    bench.add_argument("--starts", type=whole_number("--starts", 2), default=30,
                       help="daemon: starts to READY timed (default: 30)")
    bench.add_argument("--tables", type=whole_number("--tables", 1, _most_tables), default=200,
                       help="fleet: simulated tables reporting (default: 200)")
    bench.add_argument("--flood", type=float, default=None, metavar="RATE",
                       help="fleet: instead, one table sends its 95 KB night RATE times a second, and another's change "
                            "is timed to the dashboard's page, before and during the flood (issue 37: 30)")
    bench.add_argument("--cafes", type=whole_number("--cafes", 1, _most_cafes), default=20,
                       help="league: cafés of three tables each, bridged to one league (default: 20)")
    bench.add_argument("--pictures", type=whole_number("--pictures", 2), default=40,
                       help="cards: photographs of a laid-out grid to read, the conditions taken in turn (default: 40)")
    bench.add_argument("--boards", type=whole_number("--boards", 1), default=200,
                       help="clues: games played per language with the table's clues (default: 200)")
    bench.add_argument("--json", action="store_true")
    bench.set_defaults(func=_bench)


def _bench(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    results: Mapping[str, object]  # each bench's figures: a number, or a group of them by name
    if args.what == "engine":
        from ..bench import engine

        results = engine.run(games=args.games)
    elif args.what == "render":
        from ..bench import render

        results = render.run(idle_s=args.idle)
    elif args.what == "daemon":
        from ..bench import daemon

        results = daemon.run(starts=args.starts)
    elif args.what == "fleet":
        from ..bench import fleet

        results = fleet.run(tables=args.tables) if args.flood is None else fleet.flood(rate=args.flood)
    elif args.what == "night":
        from ..bench import night

        results = night.run()
    elif args.what == "cards":
        from ..bench import cards

        results = cards.run(count=args.pictures, cpu=args.cpu)
    elif args.what == "league":
        from ..bench import league

        results = league.run(cafes=args.cafes)
    elif args.what == "clues":
        from ..bench import clues

        results = clues.run(boards=args.boards, cpu=args.cpu)
    else:
        from ..bench import latency

        if args.phones is None:
            results = latency.run(touches=args.touches, cpu=args.cpu)
        else:
            results = latency.compare(touches=args.touches, phones=args.phones, cpu=args.cpu)
    if args.json:
        print(json.dumps(results))
        return 0
    plain = {name: value for name, value in results.items() if not isinstance(value, dict)}
    if plain:
        print("  ".join(f"{name}={value}" for name, value in plain.items()))
    for name, figures in results.items():
        if isinstance(figures, dict):
            print(f"{name:16} " + "  ".join(f"{k}={v}" for k, v in figures.items()))
    return 0
