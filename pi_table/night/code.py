"""The night's code: how a table's staff accept the host of a night their table is to follow.

A host draws a code when it opens a night, and shows it on its own screen and staff page. Its
plan carries a proof made from the code, the host's name and the night's id; the staff of a
table the night names type the code on their staff page, and their table makes the proof again.
Only the code makes the host's proof; the proof names the host, so another table that sends the
plan (and its proof) as its own is not followed with it; and it names the night, whose code is
drawn new, so a code seen once opens no other night.

Every table on the broker reads the proof, so it is made with scrypt (16 MiB, some 0.1 s on a
Pi): guessing the code's 40 bits from it takes far longer than a night lasts.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford's base 32: no I, L, O or U to misread
LENGTH = 8  # 40 bits
MISREAD = str.maketrans({"O": "0", "I": "1", "L": "1"})  # as Crockford's base 32 reads them back
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1


def new_code() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))


def shown(code: str) -> str:
    """The code as the screen and the staff page show it: two groups of four."""
    return f"{code[:4]} {code[4:]}"


def typed(text: str) -> str:
    """A code as staff typed it, its case, spaces and dashes aside, O read as 0 and I, L as 1."""
    return "".join(text.split()).replace("-", "").upper().translate(MISREAD)


def proof(code: str, host: str, night_id: str) -> str:
    """What the plan of the night ``night_id`` of table ``host`` carries, from its code."""
    salt = f"pi-table night {host} {night_id}".encode()
    return hashlib.scrypt(code.encode(), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P, dklen=16).hex()


def proves(text: str, host: str, night_id: str, given: str) -> bool:
    """Whether ``text``, a code typed, makes the proof ``given`` of table ``host``'s night ``night_id``."""
    code = typed(text)
    if len(code) != LENGTH or not set(code) <= set(ALPHABET) or not given:
        return False
    return hmac.compare_digest(proof(code, host, night_id), given)
