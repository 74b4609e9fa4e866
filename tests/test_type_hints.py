"""Types that hold at run time (issue 52.3): every dataclass's annotations resolve, so
``typing.get_type_hints`` (and what reads it: a schema, a serialiser, a debugger) works on each,
as it does on python-chess's moves. A type alias written as a string, or a name imported only
for the type checker, is a hint that does not resolve."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import typing

import pytest

import pi_table

SKIPPED = ("pi_table.__main__",)
"""Modules that run when imported."""


def dataclasses_of_the_package() -> list[type]:
    found = []
    for module in pkgutil.walk_packages(pi_table.__path__, "pi_table."):
        if module.name in SKIPPED:
            continue
        loaded = importlib.import_module(module.name)
        found += [value for value in vars(loaded).values() if isinstance(value, type)
                  and dataclasses.is_dataclass(value) and value.__module__ == module.name]
    return found


DATACLASSES = dataclasses_of_the_package()


def test_the_package_has_dataclasses_to_check():
    assert len(DATACLASSES) > 100


@pytest.mark.parametrize("cls", DATACLASSES, ids=lambda cls: f"{cls.__module__}.{cls.__qualname__}")
def test_the_hints_of_every_dataclass_resolve(cls):
    hints = typing.get_type_hints(cls)
    assert {field.name for field in dataclasses.fields(cls)} <= set(hints)
