"""The table's sound through pygame's mixer: SDL's audio on the Pi's audio out or an I2S DAC.

The table loop never waits for sound: ``play`` puts the files on a short queue and returns, and
one thread of this driver's own opens the mixer and plays them, one file after another. When
the queue is full (a burst of cues faster than they can sound) the newest are dropped and
counted in ``dropped``: a late cue is worse than none. A missing or broken audio device is a
``HealthEvent`` for "sound" (the screen shows it as a warning), never an exception in the loop;
the thread tries again every ``retry_s`` seconds, so a USB speaker plugged in later is found.

SDL chooses the output: ``SDL_AUDIODRIVER`` (``driver`` sets it) is ``alsa`` on the Pi; the
default ALSA device is whatever /boot/firmware/config.txt gives (the headphone jack, or the
MAX98357A with ``dtoverlay=max98357a``). Tests use ``dummy``, or ``disk``, which writes what
was played to ``SDL_DISKAUDIOFILE``. pygame is imported only in the driver's thread.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..engine.phrase import Phrase
from ..hal import HealthEvent
from ..hal.events import Emit
from ..hal.sound import SoundDevice

log = logging.getLogger(__name__)

NO_SOUND = Phrase.of("no sound: the audio output cannot be opened. Check the speaker or amplifier and its cable, "
                     "and [sound] in the configuration; the game goes on silent")
FAULTS = (NO_SOUND.template,)
"""The templates of the faults this module reports: docs/cafe/troubleshooting.md has an entry for each
(tests/test_troubleshooting.py collects every module's ``FAULTS``)."""
QUEUE = 4  # batches of cues waiting: a turn's worth; more is a burst nobody could follow
CHANNELS_BUSY_S = 0.5  # beyond a file's own length, the most one file may hold up the next


class PygameSound(SoundDevice):
    def __init__(self, driver: str | None = None, frequency: int = 22_050, retry_s: float = 30.0) -> None:
        self.driver = driver
        self.frequency = frequency
        self.retry_s = retry_s
        self.dropped = 0
        self.healthy: bool | None = None  # None until the mixer was first tried
        self._post: Emit | None = None
        self._queue: queue.Queue[tuple[tuple[Path, ...], float] | None] = queue.Queue(maxsize=QUEUE)
        self._pending = 0
        self._idle = threading.Condition()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="sound", daemon=True)
        self._mixer: Any = None  # pygame.mixer, once open
        self._sounds: dict[Path, Any] = {}
        self._tried_at: float | None = None

    def start(self, post: Emit) -> None:
        """Open the mixer in the driver's thread (a missing device is reported at once)."""
        self._post = post
        self._thread.start()

    def play(self, files: Sequence[Path], volume: float) -> None:
        with self._idle:
            try:
                self._queue.put_nowait((tuple(files), volume))
            except queue.Full:
                self.dropped += 1
                return
            self._pending += 1

    def wait_idle(self, timeout: float) -> bool:
        """Whether everything queued has been played (or dropped) within ``timeout`` seconds."""
        with self._idle:
            return self._idle.wait_for(lambda: self._pending == 0, timeout)

    def close(self) -> None:
        self._stop.set()
        try:
            self._queue.put_nowait(None)
        except queue.Full:
            pass  # the thread sees _stop after the batch it is playing
        if self._thread.is_alive():
            self._thread.join(timeout=3)

    # --- the driver's thread ---------------------------------------------------------------------

    def _run(self) -> None:
        self._open()
        while not self._stop.is_set():
            item = self._queue.get()
            if item is None:
                break
            try:
                if self._open():
                    self._play(*item)
            except Exception:  # a broken file or device costs its cue, never the thread
                log.exception("could not play %s", [path.name for path in item[0]])
            finally:
                with self._idle:
                    self._pending -= 1
                    self._idle.notify_all()
        if self._mixer is not None:
            self._mixer.quit()

    def _open(self) -> bool:
        """The mixer, opened now if it is not yet and the last try was long enough ago."""
        if self._mixer is not None:
            return True
        now = time.monotonic()
        if self._tried_at is not None and now - self._tried_at < self.retry_s:
            return False
        self._tried_at = now
        try:
            os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
            if self.driver:
                os.environ["SDL_AUDIODRIVER"] = self.driver
            import pygame.mixer

            pygame.mixer.init(frequency=self.frequency, size=-16, channels=2, buffer=1024)
        except Exception as error:  # noqa: BLE001 - pygame missing, no device, a busy device: play on silent
            if self.healthy is not False:
                log.warning("%s (%s)", NO_SOUND, error)
                self._report(False)
            return False
        self._mixer = pygame.mixer
        if self.healthy is not True:
            self._report(True)
        return True

    def _report(self, ok: bool) -> None:
        self.healthy = ok
        if self._post is not None:
            self._post(HealthEvent("sound", ok, "" if ok else NO_SOUND))

    def _play(self, files: tuple[Path, ...], volume: float) -> None:
        for path in files:
            if self._stop.is_set():
                return
            sound = self._sounds.get(path)
            if sound is None:
                sound = self._sounds[path] = self._mixer.Sound(str(path))
            sound.set_volume(volume)
            channel = sound.play()
            if channel is None:  # every channel busy: drop the rest of this batch
                self.dropped += 1
                return
            deadline = time.monotonic() + sound.get_length() + CHANNELS_BUSY_S
            while channel.get_busy() and time.monotonic() < deadline and not self._stop.is_set():
                time.sleep(0.02)
