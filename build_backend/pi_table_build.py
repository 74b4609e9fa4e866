"""pi-table's build backend: setuptools', with the catalogues compiled first.

The Italian ``.po`` is the catalogue a translator edits and git keeps; the ``.mo`` that the
standard library's gettext reads is made from it at every build (a wheel, an editable install,
the release's wheels on a Pi), never committed: a binary every branch would rewrite is a conflict
every branch meets (issue 77). ``python -m pi_table.ui.messages`` compiles the same way in a
checkout, through the same ``pi_table_catalogues.compile_catalogues``.
"""
from __future__ import annotations

from pi_table_catalogues import compile_catalogues
from setuptools import build_meta
from setuptools.build_meta import (  # noqa: F401  # the rest of the interface, as setuptools has it
    build_sdist,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)


def build_wheel(wheel_directory: str, config_settings: dict[str, object] | None = None,
                metadata_directory: str | None = None) -> str:
    compile_catalogues()
    return build_meta.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_editable(wheel_directory: str, config_settings: dict[str, object] | None = None,
                   metadata_directory: str | None = None) -> str:
    compile_catalogues()
    return build_meta.build_editable(wheel_directory, config_settings, metadata_directory)
