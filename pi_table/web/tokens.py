"""Per-game page tokens: unguessable, different for every game and role, and the same after a
restart, so the phones at a resumed game keep working without scanning again.

A token is an HMAC of the game's id and the role (``spymaster``, ``seat-3``) under a secret
kept beside the journal (readable by the service alone). A new game has a new id, so the last
game's tokens open nothing; a seat the table took back has a new generation, so its old
token opens nothing either.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from pathlib import Path

from ..files import PHONES_SECRET, SECRET_BYTES, kept_secret

SPYMASTER = "spymaster"  # the grid games' private page: the key


def seat_role(seat: int) -> str:
    """The role of seat ``seat``'s page (a game whose players have seats)."""
    return f"seat-{seat}"


def role_seat(role: str) -> int | None:
    """The seat a role's page belongs to; None for another role."""
    prefix, _, number = role.partition("-")
    return int(number) if prefix == "seat" and number.isdigit() else None

TOKEN_BYTES = 16  # 128 bits: as strong as a random UUID, short enough for a QR code


class Tokens:
    def __init__(self, secret: bytes) -> None:
        if len(secret) < 16:
            # a programming error: kept_in makes and checks the secret
            raise ValueError(f"the companion's secret is at least 16 bytes, not {len(secret)}")
        self._secret = secret

    @classmethod
    def kept_in(cls, directory: Path | None) -> Tokens:
        """The secret in ``directory/companion.secret`` (``files.kept_secret``); a secret for this run
        only when there is no directory."""
        if directory is None:
            return cls(secrets.token_bytes(SECRET_BYTES))
        return cls(kept_secret(directory / PHONES_SECRET, "phones must scan again after a restart"))

    def proof(self, token: str) -> str:
        """What the cookie of the phone that opened ``token``'s page says: only this secret's
        holder can make it, so it survives a restart and cannot be guessed from the token."""
        digest = hmac.new(self._secret, f"phone\0{token}".encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest[:TOKEN_BYTES]).decode().rstrip("=")

    def token(self, game_id: str, role: str, generation: int = 0) -> str:
        """The token of ``role``'s page in game ``game_id``; ``generation`` counts the times the
        table gave that page a new link (``seats.SeatLinks``), each voiding the one before."""
        text = f"{game_id}\0{role}" + (f"\0{generation}" if generation else "")
        digest = hmac.new(self._secret, text.encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest[:TOKEN_BYTES]).decode().rstrip("=")
