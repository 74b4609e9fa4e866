"""The table's sound files, made here: the cues synthesised in Python, the announcements spoken by
espeak-ng, at build time, so the Pi only plays files.

``python -m pi_table.ui.sounds build`` writes every file into this folder (``--tones`` only the
synthesised ones: no espeak-ng needed). Every file is mono 16-bit at 11,025 Hz: a bar's small
loudspeaker gives nothing above 5 kHz worth the bytes, and the whole set stays near half a megabyte. Every file peaks at
-1 dBFS, so nothing clips at full volume, and each tone is built from notes between 300 Hz and
2.5 kHz with their overtones, where a small speaker is loud and a noisy room is quieter.
"""

from __future__ import annotations

import io
import math
import subprocess
import wave
from array import array
from collections.abc import Callable
from pathlib import Path

from ...engine.views import LANGUAGES
from ...errors import PiTableError
from ..cues import cue_file
from ..games import KINDS, kind_synthesisers
from ..i18n import translation
from ..sound import every_sound

RATE = 11_025
SILENCE = 0.02  # speech quieter than this, relative to its peak, is trimmed from both ends
PEAK = 0.89  # -1 dBFS
FULL = 32767
ESPEAK_VOICES = {"en": "en-gb", "it": "it"}
ESPEAK_SPEED = 165  # words a minute: a little slower than espeak-ng's 175, for a noisy room

Samples = list[float]

# Overtone amplitudes: the first is the note itself.
BELL = (1.0, 0.6, 0.3, 0.2, 0.1)
SQUARE = (1.0, 0.0, 1 / 3, 0.0, 1 / 5, 0.0, 1 / 7)
SOFT = (1.0, 0.25)
BUZZ = (1.0, 0.7, 0.5, 0.4, 0.3, 0.2, 0.15)


def hz(midi: float) -> float:
    """A note's frequency from its MIDI number (69: A4, 440 Hz)."""
    return 440.0 * 2 ** ((midi - 69) / 12)


def tone(start_hz: float, seconds: float, timbre: tuple[float, ...] = BELL, end_hz: float | None = None, decay_s: float = 0.25,
         attack_s: float = 0.005) -> Samples:
    """One note (sliding to ``end_hz`` if given): its overtones below the Nyquist frequency, a
    short attack, an exponential decay, and a 10 ms fade at the end so it never clicks."""
    count = int(seconds * RATE)
    end_hz = start_hz if end_hz is None else end_hz
    out = []
    phase = 0.0
    fade = int(0.01 * RATE)
    for i in range(count):
        t = i / RATE
        freq = start_hz + (end_hz - start_hz) * i / count
        phase += 2 * math.pi * freq / RATE
        value = sum(a * math.sin(k * phase) for k, a in enumerate(timbre, start=1) if a and k * freq < RATE / 2)
        envelope = min(1.0, t / attack_s) * math.exp(-t / decay_s) * min(1.0, (count - i) / fade)
        out.append(value * envelope)
    return out


def noise(seconds: float, decay_s: float, seed: int = 1) -> Samples:
    """White noise from a fixed linear congruential sequence (the same bytes on every machine)."""
    state = seed
    out = []
    for i in range(int(seconds * RATE)):
        state = (state * 1103515245 + 12345) % 2**31
        out.append((state / 2**30 - 1.0) * math.exp(-i / RATE / decay_s))
    return out


def low_pass(samples: Samples, hz_cut: float) -> Samples:
    """A one-pole low-pass filter: turns noise into a rumble."""
    alpha = 1 - math.exp(-2 * math.pi * hz_cut / RATE)
    out, y = [], 0.0
    for x in samples:
        y += alpha * (x - y)
        out.append(y)
    return out


def tremolo(samples: Samples, rate_hz: float, depth: float) -> Samples:
    return [x * (1 - depth * (0.5 + 0.5 * math.sin(2 * math.pi * rate_hz * i / RATE))) for i, x in enumerate(samples)]


def notes(*parts: tuple[float, Samples]) -> Samples:
    """Mix parts, each starting at its time in seconds."""
    length = max(int(at * RATE) + len(part) for at, part in parts)
    out = [0.0] * length
    for at, part in parts:
        offset = int(at * RATE)
        for i, x in enumerate(part):
            out[offset + i] += x
    return out


def _reveal_red() -> Samples:
    return notes((0, tone(hz(72), 0.18, SQUARE, decay_s=0.12)), (0.12, tone(hz(79), 0.35, SQUARE, decay_s=0.15)))


def _reveal_blue() -> Samples:
    return notes(*((i * 0.09, tone(hz(m), 0.4 - i * 0.05, BELL, decay_s=0.15)) for i, m in enumerate((69, 73, 76))))


def _reveal_opponent() -> Samples:
    return notes((0, tone(hz(67), 0.22, BUZZ, decay_s=0.2)), (0.18, tone(hz(64), 0.4, BUZZ, decay_s=0.2)))


def _reveal_bystander() -> Samples:
    return tone(hz(69), 0.15, SOFT, decay_s=0.06)


def _assassin() -> Samples:
    return tremolo(tone(220, 1.1, BUZZ, end_hz=55, decay_s=0.8), 12, 0.5)


def _nuke() -> Samples:
    boom = low_pass(noise(1.2, 0.4, seed=24), 400)
    crack = noise(0.15, 0.03, seed=7)
    rumble = tone(110, 1.2, BUZZ, end_hz=40, decay_s=0.5)
    return notes((0, [8 * x for x in boom]), (0, crack), (0, [0.6 * x for x in rumble]))


def _turn() -> Samples:
    return notes((0, tone(hz(76), 0.45, BELL, decay_s=0.3)), (0.3, tone(hz(72), 0.7, BELL, decay_s=0.4)))


def _timer_warning() -> Samples:
    return notes(*((i * 0.2, tone(hz(88), 0.1, SOFT, decay_s=1.0)) for i in range(3)))


def _timer_end() -> Samples:
    return tone(hz(52), 0.9, SQUARE, decay_s=3.0, attack_s=0.02)


def _win() -> Samples:
    return notes(*((i * 0.12, tone(hz(m), 0.7 if m == 84 else 0.2, SQUARE, decay_s=0.3 if m == 84 else 0.15))
                   for i, m in enumerate((72, 76, 79, 84))))


def _game_over() -> Samples:
    return notes(*((i * 0.22, tone(hz(m), 0.5 if i == 3 else 0.22, BUZZ, decay_s=0.5)) for i, m in enumerate((67, 66, 65, 64))))


SYNTHS: dict[str, Callable[[], Samples]] = {
    "reveal-red": _reveal_red, "reveal-blue": _reveal_blue, "reveal-opponent": _reveal_opponent,
    "reveal-bystander": _reveal_bystander, "assassin": _assassin, "nuke": _nuke, "turn": _turn,
    "timer-warning": _timer_warning, "timer-end": _timer_end, "win": _win, "game-over": _game_over,
}
"""The table's cues' synthesisers (``sound.CUES``), in the README's order."""


def synthesisers() -> dict[str, Callable[[], Samples]]:
    """Every cue's synthesiser: the table's, and each kind's own (``ui.games``)."""
    found = dict(SYNTHS)
    for kind in KINDS:
        found.update(kind_synthesisers(kind))
    return found


def pcm(samples: Samples) -> array[int]:
    """16-bit samples scaled so the loudest peaks at -1 dBFS."""
    loudest = max(abs(x) for x in samples) or 1.0
    return array("h", (round(x / loudest * PEAK * FULL) for x in samples))


def synthesise(name: str) -> array[int]:
    return pcm(synthesisers()[name]())


def wav_bytes(samples: array[int], rate: int) -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(samples.tobytes())
    return buffer.getvalue()


class NotMono16(PiTableError, ValueError):
    """A sound file (or espeak-ng's speech) not in the form the synthesisers mix: mono 16-bit,
    at the rate expected."""


def read_wav(path: Path) -> tuple[array[int], int]:
    """A mono 16-bit file's samples and rate."""
    with wave.open(str(path), "rb") as wav:
        if wav.getnchannels() != 1 or wav.getsampwidth() != 2:
            raise NotMono16(f"{path}: expected mono 16-bit, found {wav.getnchannels()} channels of {wav.getsampwidth()} bytes")
        samples = array("h", wav.readframes(wav.getnframes()))
        return samples, wav.getframerate()


def speak(text: str, lang: str) -> array[int]:
    """``text`` spoken by espeak-ng in ``lang``, halved to 11,025 Hz (two samples averaged:
    a low-pass on the way), its silent ends trimmed, scaled to peak at -1 dBFS."""
    result = subprocess.run(
        ["espeak-ng", "-v", ESPEAK_VOICES[lang], "-s", str(ESPEAK_SPEED), "--stdout", text],
        capture_output=True, check=True, timeout=30,
    )
    with wave.open(io.BytesIO(result.stdout), "rb") as wav:
        if wav.getframerate() != 2 * RATE or wav.getsampwidth() != 2:
            raise NotMono16(f"espeak-ng gave {wav.getframerate()} Hz, {wav.getsampwidth()} bytes: expected 22050 Hz, 2")
        raw = array("h", wav.readframes(wav.getnframes()))
    halved = [(raw[i] + raw[i + 1]) / 2 for i in range(0, len(raw) - 1, 2)]
    floor = SILENCE * max(abs(x) for x in halved)
    sounding = [i for i, x in enumerate(halved) if abs(x) > floor]
    margin = int(0.03 * RATE)
    return pcm(halved[max(0, sounding[0] - margin): sounding[-1] + margin])


def build(tones_only: bool = False) -> list[Path]:
    """Write every cue's file (and every announcement's, unless ``tones_only``); the written paths."""
    written = []
    sounds = every_sound()
    for cue in sounds.cues:
        path = cue_file(cue.name, "en")
        path.write_bytes(wav_bytes(synthesise(cue.name), RATE))
        written.append(path)
    if not tones_only:
        for name, phrase in sounds.phrases.items():
            for lang in LANGUAGES:
                path = cue_file(name, lang)
                path.write_bytes(wav_bytes(speak(translation(lang).gettext(phrase), lang), RATE))
                written.append(path)
    return written
