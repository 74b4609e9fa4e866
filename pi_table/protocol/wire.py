"""The serial link between the touch board and the Pi: frames, messages and their text form.

The same file runs on the board under CircuitPython and on the Pi under CPython, so it uses
only what both have: no dataclasses, enum, typing or struct. Its types are in comments, which
mypy reads and CircuitPython skips. firmware/PROTOCOL.md documents
the bytes, with examples that tests/test_protocol.py checks against this code.

A frame is ``A5 LEN SEQ TYPE PAYLOAD... CRC_HI CRC_LO``: a sync byte, the payload length,
a sequence number (each side counts its own frames, 0-255, wrapping), the message type, the
payload, and a CRC-16/CCITT-FALSE over LEN, SEQ, TYPE and the payload. After garbage or a bad
CRC the decoder resynchronises at the next sync byte.
"""

SYNC = 0xA5
PROTOCOL_MAJOR = 1
PROTOCOL_MINOR = 4  # 1.1 added readings and stream-readings, 1.2 fault, 1.3 the fault not-answering, 1.4 thresholds per chip
MAX_PAYLOAD = 96
OVERHEAD = 6  # sync, length, sequence, type, two CRC bytes
MASK_BYTES = 8  # touch masks are 64-bit: up to 64 electrodes
READINGS_PADS = 16  # electrodes in one readings frame: its out-of-range mask has 16 bits (4 + 16 x 4 bytes)
CHIP_ELECTRODES = 12  # an MPR121's electrodes: the pairs of set-chip-thresholds and of a thresholds report
MIN_READINGS_PERIOD_MS = 20  # 3 frames of 58 bytes every 20 ms: under 9 kB/s
TYPE_CHECKING = False  # mypy takes this name as true; no typing module is ever imported on the board
if TYPE_CHECKING:
    from typing import Any, TypeVar  # noqa: F401 - Any is used in the type comments

    M = TypeVar("M", bound="Message")
try:
    from ..errors import PiTableError
except ImportError:  # on the board, which has only this package's codec (firmware/deploy.py)
    PiTableError = object  # type: ignore[assignment, misc]


class BadMessage(PiTableError, ValueError):
    """A frame's payload, a message's fields or its text form that the protocol does not allow.
    On the Pi the table's error (``except PiTableError``); on the board, whose CircuitPython (a
    MicroPython) takes one built-in base per class, a ValueError alone: ``object`` stands in for
    the root there."""


def crc16(data, crc=0xFFFF):
    # type: (bytes | bytearray, int) -> int
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF): 0x29B1 for b"123456789"."""
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def _u16(data, at):
    # type: (bytes | bytearray, int) -> int
    return data[at] | (data[at + 1] << 8)


def _bits(mask):
    # type: (int) -> list[int]
    return [bit for bit in range(MASK_BYTES * 8) if mask >> bit & 1]


def _number(text, name):
    # type: (str, str) -> int
    try:
        return int(text, 0)
    except ValueError:
        raise BadMessage("{} must be a number, not {!r}".format(name, text))


class Message:
    """A message: ``TYPE``, ``payload()`` to bytes, ``from_payload`` back, and a text form.

    The text form is ``name key=value ...``; ``parse_text`` reads it back.
    """

    TYPE = 0
    NAME = ""
    FIELDS = ()  # type: tuple[str, ...]

    def __init__(self, *values):
        # type: (*Any) -> None
        if len(values) != len(self.FIELDS):
            raise BadMessage("{} takes {} ({})".format(self.NAME, len(self.FIELDS), ", ".join(self.FIELDS) or "nothing"))
        for name, value in zip(self.FIELDS, values):
            setattr(self, name, value)
        self.check()

    def check(self):
        # type: () -> None
        """Raise ValueError when a field is out of range."""

    def payload(self):
        # type: () -> bytes
        return b""

    @classmethod
    def from_payload(cls, payload):
        # type: (type[M], bytes) -> M
        if payload:
            raise BadMessage("{} has no payload, got {} bytes".format(cls.NAME, len(payload)))
        return cls()

    def values(self):
        # type: () -> tuple[Any, ...]
        return tuple(getattr(self, name) for name in self.FIELDS)

    def __eq__(self, other):
        # type: (object) -> bool
        return type(self) is type(other) and self.values() == other.values()

    def __hash__(self):
        # type: () -> int
        return hash((self.TYPE, self.values()))

    def __repr__(self):
        # type: () -> str
        return "<{}>".format(self)

    def text_fields(self):
        # type: () -> list[str]
        return ["{}={}".format(name, getattr(self, name)) for name in self.FIELDS]

    def __str__(self):
        # type: () -> str
        return " ".join([self.NAME] + self.text_fields())


class Hello(Message):
    """Board to host, first thing after a start or on request: who the board is."""

    TYPE = 0x01
    NAME = "hello"
    FIELDS = ("protocol", "firmware", "board", "electrodes")
    if TYPE_CHECKING:  # the fields, as Message.__init__ sets them
        protocol = (0, 0)  # type: tuple[int, ...]
        firmware = (0, 0, 0)  # type: tuple[int, ...]
        board = ""  # type: str
        electrodes = 0  # type: int

    def check(self):
        # type: () -> None
        _version(self.protocol, 2, "protocol")
        _version(self.firmware, 3, "firmware")
        board = self.board.encode() if isinstance(self.board, str) else b""
        if not 1 <= len(board) <= 32 or b" " in board or b"=" in board:
            raise BadMessage("board id is 1-32 characters without spaces, not {!r}".format(self.board))
        if not 1 <= self.electrodes <= MASK_BYTES * 8:
            raise BadMessage("electrodes is 1 to {}, not {}".format(MASK_BYTES * 8, self.electrodes))

    def payload(self):
        # type: () -> bytes
        board = self.board.encode()
        return bytes(list(self.protocol) + list(self.firmware) + [self.electrodes, len(board)]) + board

    @classmethod
    def from_payload(cls, payload):
        # type: (type[M], bytes) -> M
        if len(payload) < 7 or len(payload) != 7 + payload[6]:
            raise BadMessage("hello payload is 7 bytes plus the board id, got {} bytes".format(len(payload)))
        return cls(
            (payload[0], payload[1]), (payload[2], payload[3], payload[4]), bytes(payload[7:]).decode(), payload[5]
        )

    def text_fields(self):
        # type: () -> list[str]
        return [
            "protocol=" + ".".join(str(n) for n in self.protocol),
            "firmware=" + ".".join(str(n) for n in self.firmware),
            "board=" + self.board,
            "electrodes={}".format(self.electrodes),
        ]


class Touch(Message):
    """Board to host, on every change and as a heartbeat: every electrode touched now.

    ``counter`` counts changes (wrapping at 65536), so the host can tell a heartbeat from a
    change it missed; the mask is the whole state, so a lost frame does no harm.
    """

    TYPE = 0x02
    NAME = "touch"
    FIELDS = ("counter", "mask")
    if TYPE_CHECKING:  # the fields, as Message.__init__ sets them
        counter = 0  # type: int
        mask = 0  # type: int

    def check(self):
        # type: () -> None
        _range(self.counter, 0xFFFF, "counter")
        _range(self.mask, (1 << (MASK_BYTES * 8)) - 1, "mask")

    def payload(self):
        # type: () -> bytes
        return self.counter.to_bytes(2, "little") + self.mask.to_bytes(MASK_BYTES, "little")

    @classmethod
    def from_payload(cls, payload):
        # type: (type[M], bytes) -> M
        if len(payload) != 2 + MASK_BYTES:
            raise BadMessage("touch payload is {} bytes, got {}".format(2 + MASK_BYTES, len(payload)))
        return cls(_u16(payload, 0), int.from_bytes(bytes(payload[2:]), "little"))

    def text_fields(self):
        # type: () -> list[str]
        touched = ",".join(str(bit) for bit in _bits(self.mask)) or "-"
        return ["counter={}".format(self.counter), "mask=0x{:x}".format(self.mask), "electrodes=" + touched]


class Ack(Message):
    """Board to host: a command was carried out (status 0), refused (status names why), or
    carried out without taking (NOT_TAKEN: set-thresholds written, but the chip reads back
    others; a log says where). KEPT (added in 1.4, only for set-chip-thresholds): the chip does
    not answer now, and takes the pairs when it is set up."""

    TYPE = 0x03
    NAME = "ack"
    FIELDS = ("command", "status")
    if TYPE_CHECKING:  # the fields, as Message.__init__ sets them
        command = 0  # type: int
        status = 0  # type: int
    OK, BAD_PAYLOAD, BAD_ELECTRODE, UNKNOWN, NOT_TAKEN, KEPT = 0, 1, 2, 3, 4, 5

    def check(self):
        # type: () -> None
        _range(self.command, 0xFF, "command")
        _range(self.status, 0xFF, "status")

    def payload(self):
        # type: () -> bytes
        return bytes([self.command, self.status])

    @classmethod
    def from_payload(cls, payload):
        # type: (type[M], bytes) -> M
        if len(payload) != 2:
            raise BadMessage("ack payload is 2 bytes, got {}".format(len(payload)))
        return cls(payload[0], payload[1])

    def text_fields(self):
        # type: () -> list[str]
        return ["command=0x{:02x}".format(self.command), "status={}".format(self.status)]


class _Token(Message):
    """A message that carries only a 16-bit token: ping and its pong."""

    FIELDS = ("token",)
    if TYPE_CHECKING:  # the fields, as Message.__init__ sets them
        token = 0  # type: int

    def check(self):
        # type: () -> None
        _range(self.token, 0xFFFF, "token")

    def payload(self):
        # type: () -> bytes
        return self.token.to_bytes(2, "little")

    @classmethod
    def from_payload(cls, payload):
        # type: (type[M], bytes) -> M
        if len(payload) != 2:
            raise BadMessage("{} payload is 2 bytes, got {}".format(cls.NAME, len(payload)))
        return cls(_u16(payload, 0))


class Pong(_Token):
    """Board to host: the answer to a ping, with its token."""

    TYPE = 0x04
    NAME = "pong"


class Log(Message):
    """Board to host: a line of text for the host's log (a chip missing, a restart cause)."""

    TYPE = 0x05
    NAME = "log"
    FIELDS = ("text",)
    if TYPE_CHECKING:  # the fields, as Message.__init__ sets them
        text = ""  # type: str

    def check(self):
        # type: () -> None
        if len(self.text.encode()) > MAX_PAYLOAD:
            raise BadMessage("log text is at most {} bytes".format(MAX_PAYLOAD))

    def payload(self):
        # type: () -> bytes
        return self.text.encode()

    @classmethod
    def from_payload(cls, payload):
        # type: (type[M], bytes) -> M
        try:
            return cls(bytes(payload).decode())
        except UnicodeError:
            raise BadMessage("log text is not UTF-8")

    def text_fields(self):
        # type: () -> list[str]
        return ["text=" + self.text]  # always last: the rest of the line is the text


class Readings(Message):
    """Board to host, while a stream is asked for: the raw numbers behind the touches of some
    electrodes of one chip, for tuning.

    ``pads`` holds one (filtered, baseline) pair per electrode from ``first`` on, both 10-bit
    counts (the chip keeps the baseline's top 8 bits: it arrives as a multiple of 4); a touch
    is baseline - filtered above the touch threshold. ``out_of_range`` has bit n set when
    electrode first+n is out of autoconfiguration's range; ``flags`` holds the chip's
    OVER_CURRENT, AUTOCONFIG_FAILED and RECONFIG_FAILED bits. A frame carries at most
    READINGS_PADS electrodes; the board sends one frame per chip (12).
    """

    TYPE = 0x06
    NAME = "readings"
    FIELDS = ("first", "flags", "out_of_range", "pads")
    if TYPE_CHECKING:  # the fields, as Message.__init__ sets them
        first = 0  # type: int
        flags = 0  # type: int
        out_of_range = 0  # type: int
        pads = ()  # type: tuple[tuple[int, int], ...]
    OVER_CURRENT, AUTOCONFIG_FAILED, RECONFIG_FAILED = 1, 2, 4

    def check(self):
        # type: () -> None
        _range(self.first, MASK_BYTES * 8 - 1, "first")
        _range(self.flags, 7, "flags")
        if not 1 <= len(self.pads) <= READINGS_PADS:
            raise BadMessage("readings carries 1 to {} electrodes, not {}".format(READINGS_PADS, len(self.pads)))
        if self.first + len(self.pads) > MASK_BYTES * 8:
            raise BadMessage("readings go past electrode {}".format(MASK_BYTES * 8 - 1))
        _range(self.out_of_range, (1 << len(self.pads)) - 1, "out_of_range")
        for filtered, baseline in self.pads:
            _range(filtered, 1023, "filtered")
            _range(baseline, 1023, "baseline")

    def payload(self):
        # type: () -> bytes
        out = bytes([self.first, self.flags]) + self.out_of_range.to_bytes(2, "little")
        for filtered, baseline in self.pads:
            out += filtered.to_bytes(2, "little") + baseline.to_bytes(2, "little")
        return out

    @classmethod
    def from_payload(cls, payload):
        # type: (type[M], bytes) -> M
        if len(payload) < 8 or len(payload) % 4:
            raise BadMessage("readings payload is 4 bytes plus 4 per electrode, got {} bytes".format(len(payload)))
        pads = tuple((_u16(payload, at), _u16(payload, at + 2)) for at in range(4, len(payload), 4))
        return cls(payload[0], payload[1], _u16(payload, 2), pads)

    def text_fields(self):
        # type: () -> list[str]
        return ["first={}".format(self.first), "flags=0x{:x}".format(self.flags),
                "out_of_range=0x{:x}".format(self.out_of_range),
                "pads=" + ",".join("{}/{}".format(f, b) for f, b in self.pads)]


CHIP_ANSWERS, CHIP_STOPPED, CHIP_MISSING = 0, 1, 2
"""The count of a NOT_ANSWERING fault: the chip's state."""


class Fault(Message):
    """Board to host (added in 1.2): something the bus or a chip did, and what the board did about it.

    ``chip`` is the chip's I2C address (0 for the bus as a whole). ``kind``: I2C_ERRORS, ``count``
    transfers to the chip failed since the last such report, each tried again (a chip
    that fails every try is lost, which a log says); RESET, the chip was found out of run mode or
    with its configuration changed (what a brown-out leaves) and was set up again, the ``count``-th
    time since the board started; OUT_OF_RANGE, the chip's out-of-range status (registers
    0x02-0x03: bit n electrode n, bit 14 auto-reconfiguration failed, bit 15 autoconfiguration
    failed) read ``count``, and the chip was set up again; BUS_HELD, SDA was held low and
    ``count`` clocks on SCL freed it (0: nine did not, the bus is given up until the next try);
    NOT_ANSWERING (added in 1.3), the chip's state, told on each change, after each hello and
    again each second while it lasts: ``count`` CHIP_STOPPED (it stopped answering), CHIP_MISSING
    (none has answered at its address since the board started) or CHIP_ANSWERS (it answers again).
    A host takes a kind it does not know as a fault of the chip, and logs it.
    """

    TYPE = 0x07
    NAME = "fault"
    FIELDS = ("kind", "chip", "count")
    if TYPE_CHECKING:  # the fields, as Message.__init__ sets them
        kind = 0  # type: int
        chip = 0  # type: int
        count = 0  # type: int
    I2C_ERRORS, RESET, OUT_OF_RANGE, BUS_HELD, NOT_ANSWERING = 1, 2, 3, 4, 5

    def check(self):
        # type: () -> None
        _range(self.kind, 0xFF, "kind")
        _range(self.chip, 0x7F, "chip")
        _range(self.count, 0xFFFF, "count")

    def payload(self):
        # type: () -> bytes
        return bytes([self.kind, self.chip]) + self.count.to_bytes(2, "little")

    @classmethod
    def from_payload(cls, payload):
        # type: (type[M], bytes) -> M
        if len(payload) != 4:
            raise BadMessage("fault payload is 4 bytes, got {}".format(len(payload)))
        return cls(payload[0], payload[1], _u16(payload, 2))

    def text_fields(self):
        # type: () -> list[str]
        return ["kind={}".format(self.kind), "chip=0x{:02x}".format(self.chip), "count={}".format(self.count)]


class _ChipPairs(Message):
    """A chip's I2C address and a (touch, release) pair for each of its CHIP_ELECTRODES electrodes."""

    FIELDS = ("chip", "pairs")
    if TYPE_CHECKING:  # the fields, as Message.__init__ sets them
        chip = 0  # type: int
        pairs = ()  # type: tuple[tuple[int, int], ...]

    def check(self):
        # type: () -> None
        _range(self.chip, 0x7F, "chip")
        if not isinstance(self.pairs, tuple) or len(self.pairs) != CHIP_ELECTRODES:
            raise BadMessage("{} carries {} pairs, one per electrode of the chip".format(self.NAME, CHIP_ELECTRODES))
        for touch, release in self.pairs:
            _range(touch, 0xFF, "touch threshold")
            _range(release, 0xFF, "release threshold")

    def payload(self):
        # type: () -> bytes
        flat = [self.chip]
        for touch, release in self.pairs:
            flat += [touch, release]
        return bytes(flat)

    @classmethod
    def from_payload(cls, payload):
        # type: (type[M], bytes) -> M
        if len(payload) != 1 + 2 * CHIP_ELECTRODES:
            raise BadMessage("{} payload is {} bytes, got {}".format(cls.NAME, 1 + 2 * CHIP_ELECTRODES, len(payload)))
        return cls(payload[0], tuple((payload[i], payload[i + 1]) for i in range(1, len(payload), 2)))

    def text_fields(self):
        # type: () -> list[str]
        return ["chip=0x{:02x}".format(self.chip), "pairs=" + ",".join("{}/{}".format(t, r) for t, r in self.pairs)]


class Thresholds(_ChipPairs):
    """Board to host (added in 1.4): the pairs a chip reads back, so the host knows whether it runs
    the host's. Sent after each set-up of a chip (at start, found, answering again, found reset),
    after each command that wrote its thresholds, and after each hello for every chip that answers."""

    TYPE = 0x08
    NAME = "thresholds"


class SetChipThresholds(_ChipPairs):
    """Host to board (added in 1.4): the thresholds of one chip's electrodes, kept by the board as
    that chip's own: written at once where it answers, and at every later set-up of it (a chip
    missing at start, one answering again, one a brown-out reset). Acked OK (it runs them),
    NOT_TAKEN (it reads back others), KEPT (it does not answer now) or BAD_ELECTRODE (no chip of
    the board's at that address)."""

    TYPE = 0x87
    NAME = "set-chip-thresholds"

    def check(self):
        # type: () -> None
        _ChipPairs.check(self)
        for touch, release in self.pairs:
            if not 0 < release < touch:
                raise BadMessage("a threshold pair is touch/release with 0 < release < touch <= 255")


class GetHello(Message):
    """Host to board: say hello again (the host does this when it opens the port)."""

    TYPE = 0x81
    NAME = "get-hello"


class SetThresholds(Message):
    """Host to board: touch and release thresholds for electrodes ``first``, ``first+1``, ...

    ``pairs`` is a tuple of (touch, release) pairs, 1-255 each, release below touch.
    """

    TYPE = 0x82
    NAME = "set-thresholds"
    FIELDS = ("first", "pairs")
    if TYPE_CHECKING:  # the fields, as Message.__init__ sets them
        first = 0  # type: int
        pairs = ()  # type: tuple[tuple[int, int], ...]

    def check(self):
        # type: () -> None
        _range(self.first, MASK_BYTES * 8 - 1, "first")
        if not 1 <= len(self.pairs) <= (MAX_PAYLOAD - 1) // 2:
            raise BadMessage("set-thresholds takes 1 to {} pairs".format((MAX_PAYLOAD - 1) // 2))
        for touch, release in self.pairs:
            if not 0 < release < touch <= 0xFF:
                raise BadMessage("a threshold pair is touch/release with 0 < release < touch <= 255")

    def payload(self):
        # type: () -> bytes
        flat = [self.first]
        for touch, release in self.pairs:
            flat += [touch, release]
        return bytes(flat)

    @classmethod
    def from_payload(cls, payload):
        # type: (type[M], bytes) -> M
        if len(payload) < 3 or len(payload) % 2 != 1:
            raise BadMessage("set-thresholds payload is 1 byte plus pairs, got {} bytes".format(len(payload)))
        pairs = tuple((payload[i], payload[i + 1]) for i in range(1, len(payload), 2))
        return cls(payload[0], pairs)

    def text_fields(self):
        # type: () -> list[str]
        return ["first={}".format(self.first), "pairs=" + ",".join("{}/{}".format(t, r) for t, r in self.pairs)]


class Recalibrate(Message):
    """Host to board: take a new baseline for these electrodes (``mask`` 0: all of them)."""

    TYPE = 0x83
    NAME = "recalibrate"
    FIELDS = ("mask",)
    if TYPE_CHECKING:  # the fields, as Message.__init__ sets them
        mask = 0  # type: int

    def check(self):
        # type: () -> None
        _range(self.mask, (1 << (MASK_BYTES * 8)) - 1, "mask")

    def payload(self):
        # type: () -> bytes
        return self.mask.to_bytes(MASK_BYTES, "little")

    @classmethod
    def from_payload(cls, payload):
        # type: (type[M], bytes) -> M
        if len(payload) != MASK_BYTES:
            raise BadMessage("recalibrate payload is {} bytes, got {}".format(MASK_BYTES, len(payload)))
        return cls(int.from_bytes(bytes(payload), "little"))

    def text_fields(self):
        # type: () -> list[str]
        return ["mask=0x{:x}".format(self.mask)]


class Ping(_Token):
    """Host to board: are you there? The board answers with a pong carrying the token."""

    TYPE = 0x84
    NAME = "ping"


class Reset(Message):
    """Host to board: restart the board (it says hello again when it is back)."""

    TYPE = 0x85
    NAME = "reset"


class StreamReadings(Message):
    """Host to board: send readings of every chip each ``period_ms`` for ``rounds`` rounds;
    ``rounds`` 0 stops. A get-hello stops it too, so a host that opens the port afresh is
    not flooded by a stream some earlier program asked for."""

    TYPE = 0x86
    NAME = "stream-readings"
    FIELDS = ("period_ms", "rounds")
    if TYPE_CHECKING:  # the fields, as Message.__init__ sets them
        period_ms = 0  # type: int
        rounds = 0  # type: int

    def check(self):
        # type: () -> None
        _range(self.period_ms, 0xFFFF, "period_ms")
        _range(self.rounds, 0xFFFF, "rounds")
        if self.rounds and self.period_ms < MIN_READINGS_PERIOD_MS:
            raise BadMessage("a stream's period_ms is at least {}, not {}".format(MIN_READINGS_PERIOD_MS, self.period_ms))

    def payload(self):
        # type: () -> bytes
        return self.period_ms.to_bytes(2, "little") + self.rounds.to_bytes(2, "little")

    @classmethod
    def from_payload(cls, payload):
        # type: (type[M], bytes) -> M
        if len(payload) != 4:
            raise BadMessage("stream-readings payload is 4 bytes, got {}".format(len(payload)))
        return cls(_u16(payload, 0), _u16(payload, 2))


MESSAGES = {cls.TYPE: cls for cls in (Hello, Touch, Ack, Pong, Log, Readings, Fault, Thresholds, GetHello,
                                      SetThresholds, Recalibrate, Ping, Reset, StreamReadings, SetChipThresholds)}
BY_NAME = {cls.NAME: cls for cls in MESSAGES.values()}


def _range(value, top, name):
    # type: (object, int, str) -> None
    if not isinstance(value, int) or not 0 <= value <= top:
        raise BadMessage("{} is 0 to {}, not {!r}".format(name, top, value))


def _version(value, parts, name):
    # type: (object, int, str) -> None
    if not isinstance(value, tuple) or len(value) != parts:
        raise BadMessage("{} version has {} numbers, not {!r}".format(name, parts, value))
    for part in value:
        _range(part, 0xFF, name + " version")


def encode(message, seq):
    # type: (Message, int) -> bytes
    """The bytes of one frame carrying ``message``."""
    payload = message.payload()
    if len(payload) > MAX_PAYLOAD:
        raise BadMessage("payload of {} bytes is over the {}-byte limit".format(len(payload), MAX_PAYLOAD))
    body = bytes([len(payload), seq & 0xFF, message.TYPE]) + payload
    crc = crc16(body)
    return bytes([SYNC]) + body + bytes([crc >> 8, crc & 0xFF])


def decode_message(kind, payload):
    # type: (int, bytes) -> Message
    """The message of a frame whose CRC was right; ValueError if type or payload do not fit."""
    cls = MESSAGES.get(kind)
    if cls is None:
        raise BadMessage("unknown message type 0x{:02x}".format(kind))
    return cls.from_payload(payload)


class Decoder:
    """Turns a byte stream into messages, skipping garbage and damaged frames.

    ``feed(data)`` returns a list of ``(seq, message)``. A frame whose CRC is wrong, or whose
    payload does not fit its type, is dropped (counted in ``bad_frames``) and the search goes
    on from the byte after its sync byte, so one bad byte costs at most one frame. (Plain
    index loops: CircuitPython's bytearray has no ``find`` or resizing slice assignment.)
    """

    def __init__(self):
        # type: () -> None
        self._buffer = bytearray()
        self.frames = 0
        self.bad_frames = 0
        self.skipped_bytes = 0

    def feed(self, data):
        # type: (bytes | bytearray) -> list[tuple[int, Message]]
        buffer = self._buffer + data
        end = len(buffer)
        start = 0
        out = []
        while True:
            while start < end and buffer[start] != SYNC:
                start += 1
                self.skipped_bytes += 1
            if end - start < 2:
                break
            size = buffer[start + 1] + OVERHEAD
            if size - OVERHEAD > MAX_PAYLOAD:
                start = self._bad(start)
                continue
            if end - start < size:
                break
            body = bytes(buffer[start + 1 : start + size - 2])
            if crc16(body) != (buffer[start + size - 2] << 8) | buffer[start + size - 1]:
                start = self._bad(start)
                continue
            try:
                message = decode_message(body[2], body[3:])
            except ValueError:
                start = self._bad(start)
                continue
            self.frames += 1
            out.append((body[1], message))
            start += size
        self._buffer = buffer[start:]
        return out

    @property
    def pending(self):
        # type: () -> int
        """Bytes held back while waiting for the rest of a frame."""
        return len(self._buffer)

    def drop_partial(self):
        # type: () -> list[tuple[int, Message]]
        """Give up on the frame being waited for and rescan what follows its sync byte.

        A damaged length byte can make the decoder wait for bytes that belong to the next
        frames. The board writes each frame at once, so a reader whose input has gone quiet
        with a frame still pending calls this instead of waiting for the next heartbeat.
        """
        if not self._buffer:
            return []
        self._buffer = self._buffer[self._bad(0) :]
        return self.feed(b"")

    def _bad(self, start):
        # type: (int) -> int
        """Count a damaged frame and resume the search just after its sync byte."""
        self.bad_frames += 1
        self.skipped_bytes += 1
        return start + 1


def parse_text(line):
    # type: (str) -> Message
    """Read a message's text form (``touch counter=2 mask=0x1``); ValueError says what is off."""
    words = line.split()
    if not words or words[0] not in BY_NAME:
        raise BadMessage("unknown message {!r}: expected one of {}".format(
            words[0] if words else "", ", ".join(sorted(BY_NAME))))
    cls = BY_NAME[words[0]]
    if cls is Log:
        _, found, text = line.partition(" text=")
        if not found:
            raise BadMessage("log takes text=<the rest of the line>")
        return Log(text)
    fields = {}
    for word in words[1:]:
        if "=" not in word:
            raise BadMessage("expected key=value, got {!r}".format(word))
        key, value = word.split("=", 1)
        fields[key] = value
    return _from_text(cls, fields)


def _from_text(cls, fields):
    # type: (type[Message], dict[str, str]) -> Message
    wanted = set(cls.FIELDS) | ({"electrodes"} if cls is Touch else set())
    unknown = sorted(set(fields) - wanted)
    missing = sorted(set(cls.FIELDS) - set(fields))
    if unknown or missing:
        raise BadMessage("{} takes {}; unknown: {}; missing: {}".format(
            cls.NAME, ", ".join(cls.FIELDS) or "nothing", ", ".join(unknown) or "-", ", ".join(missing) or "-"))
    if cls is Hello:
        return Hello(
            _dotted(fields["protocol"], 2, "protocol"),
            _dotted(fields["firmware"], 3, "firmware"),
            fields["board"],
            _number(fields["electrodes"], "electrodes"),
        )
    if cls is Touch:
        touch = Touch(_number(fields["counter"], "counter"), _number(fields["mask"], "mask"))
        listed = touch.text_fields()[2]
        if "electrodes" in fields and "electrodes=" + fields["electrodes"] != listed:
            raise BadMessage("electrodes={} does not match the mask ({})".format(fields["electrodes"], listed))
        return touch
    if cls is SetThresholds:
        pairs = _pairs(fields["pairs"], "touch threshold", "release threshold")
        return SetThresholds(_number(fields["first"], "first"), pairs)
    if cls is Thresholds or cls is SetChipThresholds:
        return cls(_number(fields["chip"], "chip"), _pairs(fields["pairs"], "touch threshold", "release threshold"))
    if cls is Readings:
        return Readings(_number(fields["first"], "first"), _number(fields["flags"], "flags"),
                        _number(fields["out_of_range"], "out_of_range"), _pairs(fields["pads"], "filtered", "baseline"))
    return cls(*[_number(fields[name], name) for name in cls.FIELDS])


def _pairs(text, left, right):
    # type: (str, str, str) -> tuple[tuple[int, int], ...]
    """``a/b,c/d`` as ((a, b), (c, d))."""
    pairs = []
    for pair in text.split(","):
        first, _, second = pair.partition("/")
        pairs.append((_number(first, left), _number(second, right)))
    return tuple(pairs)


def _dotted(text, parts, name):
    # type: (str, int, str) -> tuple[int, ...]
    numbers = tuple(_number(part, name + " version") for part in text.split("."))
    if len(numbers) != parts:
        raise BadMessage("{} version is {} numbers joined by dots, not {!r}".format(name, parts, text))
    return numbers
