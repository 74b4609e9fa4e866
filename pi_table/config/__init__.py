"""The table's configuration: one TOML file in which every key has a default.

The rooms: ``schema`` (every key, its kind, default and help), ``settings`` (the settings
objects of the layers below, built from the keys' values; they check their own ranges, so a
range lives in one place), ``loading`` (reading a file, checking every key's type, and naming
the key at fault when building fails), ``machine`` (the values that cannot work on this
machine) and ``writing`` (changing keys in the file, keeping its comments). Every problem
found is reported at once, with the file, the key, what was expected and what was found.

The hardware keys' defaults are the reference build's wiring, read from hardware/pinout.toml.
``writing`` is imported by what writes (the staff page's desk, ``tune --write``,
``check-config --defaults``), so the daemon's start does without it.
"""

from .loading import ConfigError, load_config, parse_config
from .machine import check_machine
from .schema import BY_KEY, DEFAULT_PATH, OPTIONS, SECTIONS, Option, defaults
from .settings import Config, FleetConfig, LedConfig, Paths, ScreenConfig, WebConfig, broker, build, user_paths

__all__ = [
    "ConfigError", "load_config", "parse_config",
    "check_machine",
    "BY_KEY", "DEFAULT_PATH", "OPTIONS", "SECTIONS", "Option", "defaults",
    "Config", "FleetConfig", "LedConfig", "Paths", "ScreenConfig", "WebConfig", "broker", "build", "user_paths",
]
