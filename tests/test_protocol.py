"""The touch-board protocol: the documented bytes, round trips, and a decoder that never
turns damaged input into a touch."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pi_table.protocol import wire

pytestmark = pytest.mark.arm64

PROTOCOL_MD = Path(__file__).parent.parent / "firmware" / "PROTOCOL.md"


def documented(kind: str) -> list[str]:
    blocks = re.findall(rf"```{kind}\n(.*?)```", PROTOCOL_MD.read_text(encoding="utf-8"), re.DOTALL)
    return [line for block in blocks for line in block.splitlines() if line.strip()]


def examples():
    lines = documented("frames")
    assert len(lines) % 2 == 0 and lines, "PROTOCOL.md examples come in pairs: text line, bytes line"
    for text_line, hex_line in zip(lines[::2], lines[1::2]):
        seq, text = re.fullmatch(r"seq (\d+)  (.*)", text_line).groups()
        yield int(seq), text, bytes.fromhex(hex_line)


EXAMPLES = list(examples())


def test_crc_check_value():
    assert wire.crc16(b"123456789") == 0x29B1


def test_every_message_type_has_a_documented_example():
    assert {wire.parse_text(text).TYPE for _, text, _ in EXAMPLES} == set(wire.MESSAGES)


@pytest.mark.parametrize("seq, text, frame", EXAMPLES, ids=[f"{text.split()[0]}-{seq}" for seq, text, _ in EXAMPLES])
def test_documented_examples_are_the_bytes_on_the_wire(seq, text, frame):
    message = wire.parse_text(text)
    assert wire.encode(message, seq) == frame
    decoder = wire.Decoder()
    assert decoder.feed(frame) == [(seq, message)]
    assert str(message) == text


def test_documented_garbage_stream():
    (line,) = documented("stream")
    stream = bytes.fromhex(line.replace("|", " "))
    decoder = wire.Decoder()
    assert [str(m) for _, m in decoder.feed(stream)] == ["touch counter=1 mask=0x1 electrodes=0"]
    assert decoder.bad_frames >= 2


messages = st.one_of(
    st.builds(
        wire.Hello,
        st.tuples(st.integers(0, 255), st.integers(0, 255)),
        st.tuples(st.integers(0, 255), st.integers(0, 255), st.integers(0, 255)),
        st.text("abcdef0123456789-_", min_size=1, max_size=32),
        st.integers(1, 64),
    ),
    st.builds(wire.Touch, st.integers(0, 0xFFFF), st.integers(0, 2**64 - 1)),
    st.builds(wire.Ack, st.integers(0, 255), st.integers(0, 255)),
    st.builds(wire.Pong, st.integers(0, 0xFFFF)),
    st.builds(wire.Ping, st.integers(0, 0xFFFF)),
    st.builds(wire.Log, st.text(max_size=30)),
    st.builds(wire.Recalibrate, st.integers(0, 2**64 - 1)),
    st.builds(
        wire.SetThresholds,
        st.integers(0, 63),
        st.lists(st.integers(2, 255).flatmap(lambda t: st.tuples(st.just(t), st.integers(1, t - 1))), min_size=1,
                 max_size=47).map(tuple),
    ),
    st.integers(1, wire.READINGS_PADS).flatmap(lambda n: st.builds(
        wire.Readings,
        st.integers(0, 64 - n),
        st.integers(0, 7),
        st.integers(0, (1 << n) - 1),
        st.lists(st.tuples(st.integers(0, 1023), st.integers(0, 1023)), min_size=n, max_size=n).map(tuple),
    )),
    st.builds(wire.StreamReadings, st.integers(wire.MIN_READINGS_PERIOD_MS, 0xFFFF), st.integers(0, 0xFFFF)),
    st.builds(wire.Fault, st.integers(0, 255), st.integers(0, 0x7F), st.integers(0, 0xFFFF)),
    st.sampled_from([wire.GetHello(), wire.Reset()]),
)


@settings(settings.get_profile("frames"))
@given(message=messages, seq=st.integers(0, 255))
def test_round_trip_bytes(message, seq):
    assert wire.Decoder().feed(wire.encode(message, seq)) == [(seq, message)]


@settings(settings.get_profile("frames"))
@given(message=messages)
def test_round_trip_text(message):
    if isinstance(message, wire.Log) and (message.text != message.text.strip() or "\n" in message.text):
        return  # a log's text form is the rest of one line
    assert wire.parse_text(str(message)) == message


@settings(settings.get_profile("frames"))
@given(message=messages, cut=st.integers(0, 200))
def test_frames_split_anywhere_reassemble(message, cut):
    frame = wire.encode(message, 9)
    decoder = wire.Decoder()
    assert decoder.feed(frame[:cut]) + decoder.feed(frame[cut:]) == [(9, message)]


@pytest.mark.parametrize(
    "text, words",
    [
        ("tap counter=1", "unknown message"),
        ("touch counter=1", "missing: mask"),
        ("touch counter=1 mask=0x1 colour=red", "unknown: colour"),
        ("touch counter=x mask=1", "must be a number"),
        ("touch counter=70000 mask=1", "counter is 0 to 65535"),
        ("touch counter=1 mask=0x3 electrodes=0", "does not match"),
        ("set-thresholds first=0 pairs=5/9", "release < touch"),
        ("hello protocol=1 firmware=0.1.0 board=x electrodes=36", "protocol version"),
        ("readings first=0 flags=0 out_of_range=0 pads=1024/720", "filtered is 0 to 1023"),
        ("readings first=0 flags=0 out_of_range=0x4 pads=720/720,720/720", "out_of_range is 0 to 3"),
        ("readings first=63 flags=0 out_of_range=0 pads=720/720,720/720", "past electrode 63"),
        ("readings first=0 flags=0 out_of_range=0 pads=" + ",".join(["1/1"] * 17), "1 to 16 electrodes"),
        ("stream-readings period_ms=5 rounds=10", "period_ms is at least 20"),
    ],
)
def test_bad_text_is_refused_with_a_reason(text, words):
    with pytest.raises(ValueError, match=words):
        wire.parse_text(text)


def decode_all(data: bytes) -> list:
    """Feed everything, then give up on partial frames the way a reader does when input goes quiet."""
    decoder = wire.Decoder()
    decoded = decoder.feed(data)
    while decoder.pending:
        decoded += decoder.drop_partial()
    return decoded


def test_a_damaged_length_does_not_hold_back_the_frames_behind_it():
    sent, stream = known_stream(count=3)
    damaged = bytearray(stream)
    damaged[1] = 0x5F  # the first frame now claims 95 payload bytes: more than the stream holds
    decoder = wire.Decoder()
    assert decoder.feed(bytes(damaged)) == []  # waiting for the rest of the "long" frame
    assert decoder.drop_partial() == sent[1:]
    assert decoder.pending == 0


def known_stream(count=40, seed=5):
    """A realistic board stream: touch reports with changing masks, heartbeats, a pong."""
    rng = random.Random(seed)
    sent = []
    for seq in range(count):
        message = wire.Touch(seq, rng.getrandbits(36)) if seq % 7 else wire.Pong(seq)
        sent.append((seq, message))
    return sent, b"".join(wire.encode(m, s) for s, m in sent)


def test_every_single_bit_flip_is_caught():
    """CRC-16 catches any single-bit error: a flipped frame is dropped, never misread."""
    sent, stream = known_stream(count=6)
    for bit in range(len(stream) * 8):
        damaged = bytearray(stream)
        damaged[bit // 8] ^= 1 << (bit % 8)
        decoded = decode_all(bytes(damaged))
        assert set(decoded) <= set(sent), f"bit {bit} produced a message that was never sent"
        assert len(decoded) == len(sent) - 1, f"bit {bit} cost more than its own frame"


def test_truncations_and_random_damage_never_invent_a_message():
    sent, stream = known_stream()
    rng = random.Random(11)
    for trial in range(2000):
        damaged = bytearray(stream)
        for _ in range(rng.randint(1, 6)):
            action = rng.choice(("flip", "drop", "insert", "cut"))
            at = rng.randrange(len(damaged))
            if action == "flip":
                damaged[at] ^= 1 << rng.randrange(8)
            elif action == "drop":
                del damaged[at : at + rng.randint(1, 20)]
            elif action == "insert":
                damaged[at:at] = rng.randbytes(rng.randint(1, 20))
            else:
                damaged = damaged[:at]
            if not damaged:
                break
        decoded = decode_all(bytes(damaged))
        assert set(decoded) <= set(sent), f"trial {trial} invented a message"


def test_random_bytes_yield_no_touch():
    decoder = wire.Decoder()
    rng = random.Random(2026)
    found = [m for _ in range(64) for _, m in decoder.feed(rng.randbytes(16_384))]
    assert found == []
    assert decoder.frames == 0 and decoder.skipped_bytes > 1_000_000 - 200


def test_the_wire_module_uses_only_what_circuitpython_has():
    """The board runs this very file: its types live in comments, and the typing names it
    needs are imported only under TYPE_CHECKING, which is False when it runs. The one other
    import is the errors' root, tried: the board has not the module, and goes on without it."""
    import ast
    from pathlib import Path

    tree = ast.parse(Path(wire.__file__).read_text(encoding="utf-8"))
    guarded = {id(node) for block in ast.walk(tree) if isinstance(block, ast.If)
               and isinstance(block.test, ast.Name) and block.test.id == "TYPE_CHECKING"
               for node in ast.walk(block)}
    tried = {id(node) for block in ast.walk(tree) if isinstance(block, ast.Try)
             and [ast.unparse(handler.type) for handler in block.handlers if handler.type] == ["ImportError"]
             for node in block.body if isinstance(node, ast.ImportFrom) and node.level == 2 and node.module == "errors"}
    assert len(tried) == 1
    offences = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in guarded | tried:
            offences.append(f"line {node.lineno}: an import")
        elif isinstance(node, ast.AnnAssign) or isinstance(node, ast.arg) and node.annotation is not None:
            offences.append(f"line {node.lineno}: an annotation")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns is not None:
            offences.append(f"line {node.lineno}: a return annotation")
    assert offences == []
    assert wire.TYPE_CHECKING is False


def test_a_message_the_protocol_refuses_is_the_tables_error_and_a_value_error():
    """``except PiTableError`` catches a bad frame or text form on the Pi; the decoder, and the
    board, whose BadMessage is a ValueError alone, catch it as a ValueError."""
    from pi_table.errors import PiTableError

    for bad in (lambda: wire.parse_text("touch counter=x mask=0x1"), lambda: wire.decode_message(0x7E, b""),
                lambda: wire.Log("x" * (wire.MAX_PAYLOAD + 1))):
        with pytest.raises(wire.BadMessage) as raised:
            bad()
        assert isinstance(raised.value, PiTableError) and isinstance(raised.value, ValueError)
