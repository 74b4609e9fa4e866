"""Small helpers shared by several test files."""

from __future__ import annotations

import random
import time

import pytest


def wait_for(condition, what: str, timeout: float = 5.0) -> None:
    """Poll ``condition`` until it holds; fail the test, naming ``what``, after ``timeout``."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.005)


def hidden_swapped(key: str, board: str, rng: random.Random) -> str:
    """Another key that agrees on every shown cell: the identities of the hidden ones shuffled."""
    hidden = [cell for cell, shown in enumerate(board) if shown == "?"]
    letters = [key[cell] for cell in hidden]
    rng.shuffle(letters)
    cells = list(key)
    for cell, letter in zip(hidden, letters):
        cells[cell] = letter
    return "".join(cells)
