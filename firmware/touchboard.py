"""The touch board's logic: scan three MPR121 chips, report touches to the Pi, obey its commands.

Plain Python that CircuitPython and CPython both run (no dataclasses, enum, typing or f-strings),
so the tests and the board emulator run this very file on the host against fake chips.
code.py only builds the hardware objects and calls ``TouchBoard.step()`` in a loop.

Electrode n is pin n % 12 of chip n // 12; the chips sit at I2C addresses 0x5A, 0x5B, 0x5C.

What a café's electricity does to the bus is survived here too: a transfer that fails is tried
again (after 1, 2 and 4 ms, so a burst of a few ms is ridden out), a chip that a brown-out reset is found by a check each second and set up again,
and a chip that holds SDA low is freed by clocking SCL (``Bus.clear``); each is told to the host
as a fault frame. A chip that does not answer is told as such each second while it lasts, so a
host that missed the change learns it within a second.
"""

import time

from pi_table.protocol import wire

ADDRESSES = (0x5A, 0x5B, 0x5C)
PINS = 12
ELECTRODES = PINS * len(ADDRESSES)
FIRMWARE_VERSION = (0, 6, 0)  # 0.6.0: thresholds per chip (protocol 1.4)
READ_SIZE = 64  # host bytes taken per step: far more than the host ever sends in 10 ms
RETRY_S = 1.0  # how often a chip that is missing or stopped answering is tried again
# A transfer that fails (a spike on the bus) is tried again this many times before its chip
# counts as not answering: a lost chip costs its 12 pads a second and a set-up, which re-takes
# their baselines (a finger held is lost), where a retry costs half a millisecond. The retries
# wait 1, 2 and 4 ms first, so the last comes 7 ms after the first failure: a burst of
# disturbance that fails every transfer for up to about 6 ms (some 20 back to back at 100 kHz)
# is ridden out, where retries at once all fell within 2 ms. A chip that is really gone costs
# those 7 ms once in the step that loses it, and once a second in each try to find it again.
RETRY_PAUSES_S = (0.001, 0.002, 0.004)
RETRIES = len(RETRY_PAUSES_S)
# How often each chip's mode, configuration and out-of-range status are read back: a chip a
# brown-out reset comes back in stop mode with its registers at their defaults, and its touch
# status then reads 0, so only these registers tell it from a table nobody touches. Between
# checks each step reads one chip's ECR in turn (one byte, ``_probe``), so a reset chip is found
# within three steps (some 15 ms) and set up at once; a chip found stopped so is set up again at
# most once a CHECK_S (one that an over-current stops again must not be set up every step).
CHECK_S = 1.0

ECR = 0x5E
ECR_STOP = 0x00
# Run: CL 0b10 (baseline tracking on, the baseline re-taken from the data on entering run
# mode), proximity channel off, electrodes 0-11 on. The driver writes this same value after
# every register write, so every re-take behaves alike.
ECR_RUN = 0x8F
SOFT_RESET = 0x80
SOFT_RESET_KEY = 0x63
CONFIG2 = 0x5D
CONFIG2_AFTER_RESET = 0x24  # what a chip that took the soft reset reads here (the driver's check too)
TOUCH_THRESHOLDS = 0x41  # touch, release, touch, release, ... for electrodes 0-11
OUT_OF_RANGE = 0x02  # 0x02-0x03: electrodes 0-11 out of range, bit 14 ARFF, bit 15 ACFF (as a u16)
STATUS_FLAGS = 0xCFFF  # of those, the twelve electrodes' bits and the two failure flags
CONFIG1 = 0x5C  # 0x5C-0x5E: CONFIG1, CONFIG2, ECR, read back together by the check
READINGS_BLOCK = 0x2B  # registers 0x00-0x2A: touch and out-of-range status, filtered data, baselines
FILTERED_DATA = 0x04
BASELINE = 0x1E

# Touch and release threshold of every electrode until the host sets its own (set-thresholds).
# Through 1-3 mm of card and cover a finger moves the data far less than on a bare pad, so both
# sit below the driver's 12/6; release stays half of touch for hysteresis against flicker.
DEFAULT_THRESHOLDS = (8, 4)

# The chip configuration, (name, register, value), written in this order after the driver's own
# reset. Reasoning from the NXP datasheet and its notes on sensing settings (AN3889/AN3890) and
# on the baseline system (AN3891), put in our words:
CHIP_SETTINGS = (
    # Baseline filter, rising (data above the baseline: a hand lifting off, a cup taken away):
    # follow at once, one count per sample, so the pad is ready again at once and the low start
    # after a re-take (CL 0b10 loads only the top 5 of the 10 bits) is caught up in under 0.1 s.
    ("MHDR", 0x2B, 0x01),
    ("NHDR", 0x2C, 0x01),
    ("NCLR", 0x2D, 0x00),
    ("FDLR", 0x2E, 0x00),
    # Falling (data below the baseline, the direction a touch goes): only after 255 samples in a
    # row (~0.5 s at ESI 2 ms; 255 is the register's most, so the ~1 s this gave at 4 ms cannot
    # be kept) does a fall count as drift, and then the baseline moves one count every sixth
    # sample (every 12 ms, as every third did at 4 ms), so a finger arriving slowly through a
    # thick card is not absorbed.
    ("MHDF", 0x2F, 0x01),
    ("NHDF", 0x30, 0x01),
    ("NCLF", 0x31, 0xFF),
    ("FDLF", 0x32, 0x05),
    # Touched: the baseline stands still while a pad is touched, so a held finger stays a touch;
    # a pad stuck by a cup or a spill stays touched until the host's stuck-pad policy recalibrates it.
    ("NHDT", 0x33, 0x00),
    ("NCLT", 0x34, 0x00),
    ("FDLT", 0x35, 0x00),
    # Debounce: a touch (bits 2-0) needs 1 more agreeing sample, a release (bits 6-4) 2, since the
    # signal through a card is small next to the noise. One for the touch, not 2, keeps the
    # pending light under 20 ms (hardware/tools/latency.py); the price is that a two-sample spike
    # can flash a pending light, but never make a guess: the host asks for the finger held for
    # game.hold_s first.
    ("DEBOUNCE", 0x5B, 0x21),
    # CONFIG1: FFI 0b10 = 18 samples in the first filter (the most noise rejection short of 34;
    # USB powers the board, so current does not matter); CDC 16 uA, a starting point only:
    # autoconfiguration picks each electrode's own charge current.
    ("CONFIG1", 0x5C, 0x90),
    # CONFIG2: CDT 0b001 = 0.5 us (also replaced per electrode by autoconfiguration); SFI 0b00 =
    # 4 samples in the second filter; ESI 0b001 = one sample every 2 ms. A touch settles in at
    # most SFI x ESI = 8 ms, which puts the pending light under 20 ms typically. The price, next
    # to SFI 6 at ESI 4 ms: random noise about 1.2x larger (the root of 6/4), and mains hum
    # (17-20 ms a cycle) averaged out less, as the filter spans 8 ms, not 24; the first filter
    # stays at 18 samples, and `pi-table tune` must be run again so the thresholds sit over the
    # noise these settings leave. ESI 2 ms holds while every electrode's charge time is 4 us or
    # less: 12 electrodes x 18 charges x 2 (charge and discharge) x 4 us = 1.7 ms. Autoconfiguration
    # does not promise that: with SCTS 0 (AUTOCONFIG1) it searches the charge time over the whole
    # 0.5-32 us, and the datasheet ties the search to no ESI and does not say whether it prefers
    # current to time. 4 us at its largest current, 63 uA, brings ~108 pF to TL, far over a pad
    # and its wire, so a pad should not need more; one that does needs ESI 4 ms again.
    ("CONFIG2", 0x5D, 0x21),
    # Autoconfiguration targets for VDD = 3.3 V by the datasheet's rule: upper limit
    # USL = (VDD - 0.7) / VDD x 256 = 201, target TL = 0.9 x USL = 181, lower limit
    # LSL = 0.65 x USL = 131. Pads of different size and wire length (tens of pF apart) each
    # get the charge that puts them near the top of the range, where a finger moves the data most.
    ("USL", 0x7D, 201),
    ("LSL", 0x7E, 131),
    ("TL", 0x7F, 181),
    # AUTOCONFIG1: no interrupts (IRQ is not wired), search charge time as well as current.
    ("AUTOCONFIG1", 0x7C, 0x00),
    # AUTOCONFIG0: FFI 0b10 (must match CONFIG1), RETRY 0b01 (2 retries), BVA 0b10 (must match
    # ECR's CL), ARE 1 (reconfigure an electrode that drifts out of range), ACE 1: the search
    # runs on every entry to run mode, so the chip is started once, after all of these.
    ("AUTOCONFIG0", 0x7B, 0x9B),
)


SETTLED = bytes([value for _name, register, value in CHIP_SETTINGS if register == CONFIG1] +
                [value for _name, register, value in CHIP_SETTINGS if register == CONFIG2] + [ECR_RUN])
"""What CONFIG1, CONFIG2 and ECR read on a chip running as configure_chip set it up. After a
reset they read 0x10, 0x24 and 0 (stop mode); a recalibrate on a reset chip would start it with
ECR right and the rest at their defaults, so all three are read."""


def connect_chip(i2c, chip_class, address):
    """The driver object of the MPR121 at ``address``, or None where none answers.

    A chip that is missing, or that does not come out of reset as an MPR121 should, must not
    stop the others: the driver raises ValueError (no device), RuntimeError (wrong state) or
    OSError (bus error), and the board carries on without that chip.
    """
    try:
        return chip_class(i2c, address)
    except (OSError, ValueError, RuntimeError):
        return None


def connect_chips(i2c, chip_class):
    """One driver object per address, or None where no MPR121 answers (see connect_chip)."""
    return [connect_chip(i2c, chip_class, address) for address in ADDRESSES]


def configure_chip(chip, thresholds):
    """Soft-reset ``chip`` and set it up for sensing through a card: ``thresholds`` are its 12
    (touch, release) pairs. Raises OSError or RuntimeError when the chip does not answer.

    Register by register, not through the driver's setters: each of those stops and restarts
    the chip, and every restart re-takes all 12 baselines and reruns autoconfiguration.
    """
    answer = bytearray(1)
    with chip._i2c as device:
        device.write(bytes([SOFT_RESET, SOFT_RESET_KEY]))
        time.sleep(0.001)  # as the driver waits after its own reset
        device.write_then_readinto(bytes([CONFIG2]), answer)
    if answer[0] != CONFIG2_AFTER_RESET:
        # as the real driver does, for the same handler
        raise RuntimeError("chip did not take the soft reset: CONFIG2 reads 0x{:02x}".format(answer[0]))
    settings = [(register, bytes([value])) for _name, register, value in CHIP_SETTINGS]
    write_stopped(chip, [(TOUCH_THRESHOLDS, _threshold_bytes(thresholds))] + settings)


def write_stopped(chip, blocks):
    """Stop ``chip``, write each (first register, bytes) block in one transfer, start it once.

    The chip takes most writes only in stop mode, and leaving stop mode re-takes every
    baseline (CL 0b10) and reruns autoconfiguration: once per update, however many registers.
    """
    with chip._i2c as device:
        device.write(bytes([ECR, ECR_STOP]))
        for register, data in blocks:
            device.write(bytes([register]) + data)
        device.write(bytes([ECR, ECR_RUN]))


def retake_baselines(chip):
    """Stop ``chip`` and start it again: CL 0b10 reloads all 12 baselines from the data."""
    write_stopped(chip, ())


def chip_state(chip):
    """(settled, status): whether ``chip``'s CONFIG1, CONFIG2 and ECR read as set up (SETTLED),
    and its out-of-range status (STATUS_FLAGS of registers 0x02-0x03). Raises OSError when the
    chip does not answer."""
    raw = bytearray(3)
    chip._read_register_bytes(CONFIG1, raw)
    status = bytearray(2)
    chip._read_register_bytes(OUT_OF_RANGE, status)
    return bytes(raw) == SETTLED, (status[0] | status[1] << 8) & STATUS_FLAGS


def _touched(chip):
    return chip.touched()


_PROBE_READ = bytearray(1)  # the one byte a probe for a missing chip reads (Bus.writeto)
_ECR_READ = bytearray(1)  # the probe's buffer: one each step, so none is made each time


def chip_running(chip):
    """Whether ``chip``'s ECR reads run mode, as configure_chip leaves it: a chip a brown-out
    reset reads 0 (stop mode). Raises OSError when the chip does not answer."""
    chip._read_register_bytes(ECR, _ECR_READ)
    return _ECR_READ[0] == ECR_RUN


def read_thresholds(chip):
    """The (touch, release) pairs ``chip``'s 12 electrodes hold: registers 0x41-0x58 in one
    transfer. The firmware writes them as one burst, which takes the chip's register pointer
    to move on after each byte written; reading them back shows a chip where it did not.
    Raises OSError when the chip does not answer."""
    raw = bytearray(2 * PINS)
    chip._read_register_bytes(TOUCH_THRESHOLDS, raw)
    return [(raw[2 * pin], raw[2 * pin + 1]) for pin in range(PINS)]


def _threshold_bytes(pairs):
    flat = []
    for touch, release in pairs:
        flat += [touch, release]
    return bytes(flat)


def read_chip(chip, first):
    """A Readings of ``chip``'s 12 electrodes (numbered from ``first``): registers 0x00-0x2A in
    one transfer. Raises OSError when the chip does not answer."""
    raw = bytearray(READINGS_BLOCK)
    chip._read_register_bytes(0x00, raw)
    flags = (wire.Readings.OVER_CURRENT if raw[1] & 0x80 else 0) | \
        (wire.Readings.AUTOCONFIG_FAILED if raw[3] & 0x80 else 0) | \
        (wire.Readings.RECONFIG_FAILED if raw[3] & 0x40 else 0)
    pads = tuple(((raw[FILTERED_DATA + 2 * pin] | raw[FILTERED_DATA + 2 * pin + 1] << 8) & 0x3FF,
                  raw[BASELINE + pin] << 2) for pin in range(PINS))
    return wire.Readings(first, flags, raw[2] | (raw[3] & 0x0F) << 8, pads)


ETIMEDOUT = 110
"""The errno of a transfer busio gave up waiting on: a chip holding SCL low. CircuitPython's RP2040
port waits a whole second for each (BUS_TIMEOUT_US in its busio/I2C.c, which does not use the
``timeout`` argument busio.I2C takes: that one is bitbangio's), so a transfer and its three
retries would outlast the watchdog's 2 s."""

BUS_CLEAR_CLOCKS = 9
HALF_CLOCK_S = 0.000005
"""NXP UM10204 (the I2C-bus specification, rev. 7) 3.1.16, bus clear: when SDA is stuck low the
controller sends nine clock pulses, within which the device holding it lets go (the rest of the
byte it was sending and the acknowledge), then a STOP. Half a clock at 100 kHz is 5 us; a slower
clock is allowed (Standard-mode's SCL runs from 0 Hz, UM10204 table 10), and CircuitPython's
sleep and pin calls make it slower."""


def clock_out(scl, sda, pause=time.sleep):
    """Free a stuck SDA on the bus's two pins (digitalio pins, driven as open drain: an output
    low, or an input that the pull-ups raise): up to nine SCL clocks until SDA reads high, then a
    STOP (SDA rising while SCL is high). The clocks it took: 0 when SDA was free or SCL reads low
    too (no pull-ups: the I2C cable out; or a chip holding SCL, which UM10204 leaves to a power
    cycle), None when nine did not free SDA (then no STOP: it could not be told)."""
    scl.switch_to_input()
    sda.switch_to_input()
    if sda.value or not scl.value:
        return 0
    clocks = 0
    while not sda.value:
        if clocks == BUS_CLEAR_CLOCKS:
            return None
        scl.switch_to_output(value=False)
        pause(HALF_CLOCK_S)
        scl.switch_to_input()
        pause(HALF_CLOCK_S)
        clocks += 1
    scl.switch_to_output(value=False)
    sda.switch_to_output(value=False)
    pause(HALF_CLOCK_S)
    scl.switch_to_input()
    pause(HALF_CLOCK_S)
    sda.switch_to_input()
    return clocks


class Bus:
    """The chips' I2C bus as ``adafruit_bus_device`` uses a ``busio.I2C``, which can be cleared.

    ``open_i2c()`` makes the busio.I2C: on CircuitPython it raises RuntimeError when a line reads
    low (its check for pull-ups), as it does when a chip holds SDA; ``open_lines()`` makes the two
    pins as digitalio gives them, (SCL, SDA), which only a deinitialised bus leaves free. The
    chips' driver objects keep this one: after a clear they go on over the new busio.I2C behind
    it. With no bus (``problem`` says why) every transfer fails with an OSError, as a missing chip's.

    A transfer that times out (ETIMEDOUT: SCL held low) gives the bus up, so every transfer after
    it fails at once until the next ``clear`` makes it again, and ``timed_out`` says so until the
    board's next step: a step meets at most one such wait, far under the watchdog.
    """

    def __init__(self, open_i2c, open_lines, pause=time.sleep):
        self.open_i2c = open_i2c
        self.open_lines = open_lines
        self.pause = pause
        self.i2c = None
        self.problem = None
        self.timed_out = False
        self._open()

    def _open(self):
        try:
            self.i2c = self.open_i2c()
            self.problem = None
        except RuntimeError as error:
            self.i2c, self.problem = None, str(error)

    def clear(self):
        """The bus given up, its lines freed (``clock_out``) and the bus made again: the clocks it
        took, 0 when SDA was free, None when it is still held."""
        if self.i2c is not None:
            self.i2c.deinit()
            self.i2c = None
        scl, sda = self.open_lines()
        try:
            clocks = clock_out(scl, sda, self.pause)
        finally:
            scl.deinit()
            sda.deinit()
        self._open()
        return clocks

    def _bus(self):
        if self.i2c is None:
            # as the real bus does, for the same handler
            raise OSError(5, "no I2C bus: {}".format(self.problem))  # 5: EIO
        return self.i2c

    def try_lock(self):
        return self.i2c is None or self.i2c.try_lock()

    def unlock(self):
        if self.i2c is not None:
            self.i2c.unlock()

    def _bounded(self, transfer, *args, **spans):
        """``transfer(*args)`` on the bus; one that timed out gives the bus up (see the class)."""
        try:
            transfer(*args, **spans)
        except OSError as error:
            if error.errno == ETIMEDOUT and self.i2c is not None:
                self.i2c.unlock()  # it is let go inside the driver's lock, which unlock() below no longer reaches
                self.i2c.deinit()
                self.i2c, self.problem, self.timed_out = None, "a transfer timed out: SCL held low", True
            raise

    def writeto(self, address, buffer, **span):
        if not buffer and not span:
            # the driver's probe for a chip: CircuitPython's RP2040 port sends a zero-byte write
            # through bitbangio, which waits a whole second on a held SCL and fails it EIO, not
            # ETIMEDOUT, so the bus is not given up and the driver's second try waits another
            # second: over the watchdog. A one-byte read asks the same (does a chip answer?), and
            # the hardware bounds it.
            self._bounded(self._bus().readfrom_into, address, _PROBE_READ)
            return
        self._bounded(self._bus().writeto, address, buffer, **span)

    def readfrom_into(self, address, buffer, **span):
        self._bounded(self._bus().readfrom_into, address, buffer, **span)

    def writeto_then_readfrom(self, address, buffer_out, buffer_in, **spans):
        self._bounded(self._bus().writeto_then_readfrom, address, buffer_out, buffer_in, **spans)


def _chip_name(index):
    return "chip 0x{:02x}".format(ADDRESSES[index])


def _electrode_span(index):
    return "electrodes {}-{}".format(index * PINS, index * PINS + PINS - 1)


def _due(since, now, interval):
    """Whether ``interval`` has passed; a clock that went backwards (a wrapped tick counter)
    counts as due, so a wrap costs one early report rather than a stall."""
    return since is None or now < since or now - since >= interval


class TouchBoard:
    """The whole board: chips in, frames out, host commands answered.

    ``chips``: three objects with the ``adafruit_mpr121.MPR121`` API, None for a missing one
    (its electrodes read untouched). ``port``: ``write(bytes)`` (non-blocking: returns how many
    bytes it took), ``read(n)`` (non-blocking: b"" or None when nothing waits) and a boolean
    ``connected``; nothing is written while the host is away, and an OSError from the port is
    swallowed. ``clock()`` gives seconds.
    ``feed_watchdog()`` is called once per completed step, and after each chip set up at start;
    ``reset()`` after a reset command's ack has been written. ``restart_cause``, when given, is
    reported in a log after each hello. ``connect(address)``, when given, makes the driver
    object of a chip missing at start (None while none answers there): such a chip is tried
    again every RETRY_S, so a loose header at power-on needs no restart. ``bus``, when given, is
    the chips' ``Bus``: when no chip answers in a step it is cleared (at most every RETRY_S),
    and the chips are read again at once when that freed it. ``pause(seconds)`` waits between
    the retries of a failed transfer.
    """

    def __init__(self, chips, port, clock, board_id, firmware=FIRMWARE_VERSION, feed_watchdog=None,
                 reset=None, heartbeat_s=0.25, restart_cause=None, connect=None, bus=None, pause=time.sleep):
        self.chips = list(chips)
        self.port = port
        self.clock = clock
        self.board_id = board_id
        self.firmware = firmware
        self.feed_watchdog = feed_watchdog
        self.reset = reset
        self.heartbeat_s = heartbeat_s
        self.restart_cause = restart_cause
        self.connect = connect
        self.bus = bus
        self.pause = pause
        self.thresholds = [DEFAULT_THRESHOLDS] * ELECTRODES
        self.decoder = wire.Decoder()
        self.counter = 0
        self.mask = 0
        self.seq = 0
        self.frames_sent = 0
        self.frames_dropped = 0
        self._tail = b""  # what the port has not yet taken of the last frame
        self.failing = {}  # chip index -> when it was last tried, for chips missing or not answering
        self.wrong_thresholds = {}  # chip index -> the log line saying what it read back instead
        self.tell_thresholds = False  # the host has sent set-chip-thresholds since its get-hello: it reads thresholds reports
        self.errors = [0] * len(self.chips)  # failed transfers of each working chip, not yet told
        self.resets = [0] * len(self.chips)  # times each chip was found reset and set up again
        self.status = [0] * len(self.chips)  # each chip's out-of-range status, as last told
        self._checked_at = None
        self._probed = -1  # the chip whose ECR the last step read
        self._set_up_at = [None] * len(self.chips)  # when the probe last had each chip set up again
        self._cleared_at = None
        self._held = False  # the bus's SDA was held low at the last clear, and nine clocks did not free it
        self._last_touch_at = None
        self.stream_rounds = 0  # readings rounds still to send (stream-readings)
        self.stream_period_s = 0.0
        self._last_readings_at = None

    # --- the loop

    def start(self):
        """Configure every chip that answers, then say hello. The watchdog is fed after each
        chip: a chip's setup is some 250 I2C transactions."""
        now = self.clock()
        for index in range(len(self.chips)):
            if self.chips[index] is None:
                self.failing[index] = now
            else:
                self._configure(index, now)
                self._feed()
        self._hello()

    def step(self):
        """One scan: report a change at once or a heartbeat when due, then serve the host."""
        now = self.clock()
        if self.bus is not None:
            self.bus.timed_out = False
        self._flush()
        mask = self._scan(now)
        if mask != self.mask:
            self.mask = mask
            self.counter = (self.counter + 1) & 0xFFFF
            self._send_touch(now)
        elif _due(self._last_touch_at, now, self.heartbeat_s):
            self._send_touch(now)
        self._serve_host()
        if self.stream_rounds and _due(self._last_readings_at, now, self.stream_period_s):
            self._send_readings(now)
        if _due(self._checked_at, now, CHECK_S):
            self._check_chips(now)
        else:
            self._probe(now)
        self._feed()

    def _feed(self):
        if self.feed_watchdog is not None:
            self.feed_watchdog()

    # --- chips

    def _scan(self, now):
        """Every chip's touch status as one mask. When no chip answers, the bus may be held: it
        is cleared, and if that freed it the chips are read again before any is lost."""
        mask, failed, answered = self._read_touches(now)
        if not answered and self._clear_bus(now):
            for index in self.failing:
                self.failing[index] = None  # tried again at once, not a second later
            mask, failed, answered = self._read_touches(now)
        for index in failed:
            self._lose(index, now)
        return mask

    def _read_touches(self, now):
        """(mask, the chips that failed, whether any answered)."""
        mask = 0
        failed = []
        answered = False
        for index in range(len(self.chips)):
            if not self._usable(index) and not self._retry(index, now):
                continue
            try:
                touched = self._io(index, _touched)
            except OSError:
                failed.append(index)
                continue
            answered = True
            mask |= (touched & 0xFFF) << (PINS * index)
        return mask, failed, answered

    def _io(self, index, work, *args):
        """``work(chip, *args)`` on chip ``index``, tried again up to RETRIES times when the bus
        fails it, after each of RETRY_PAUSES_S; each failure of a working chip is counted for the
        host. Raises the last OSError when every try failed."""
        tried = 0
        while True:
            try:
                return work(self.chips[index], *args)
            except OSError:
                if self._usable(index):
                    self.errors[index] += 1
                if tried == RETRIES:
                    raise
                self.pause(RETRY_PAUSES_S[tried])
                tried += 1

    def _clear_bus(self, now):
        """Free the bus where a chip holds SDA low (Bus.clear), at most every RETRY_S, and tell
        the host what it took; True when the chips are worth trying again at once: SDA was held
        and is free now, or there was no bus (its pull-ups missing) and now there is."""
        if self.bus is None or self.bus.timed_out or not _due(self._cleared_at, now, RETRY_S):
            return False  # a bus given up on a timeout is made again at the next step's, not within this one
        self._cleared_at = now
        absent = self.bus.i2c is None
        clocks = self.bus.clear()
        if clocks == 0:
            self._held = False
            return absent and self.bus.i2c is not None
        if clocks is not None or not self._held:  # a bus still held is told once, not every try
            self._send(wire.Fault(wire.Fault.BUS_HELD, 0, clocks or 0))
        self._held = clocks is None
        return not self._held

    def _probe(self, now):
        """The next chip's ECR (``chip_running``): one out of run mode is checked at once
        (``_check``: set up again and told), at most once a CHECK_S a chip. A chip that does not
        answer is left to the scan, which reads it every step."""
        index = self._probed = (self._probed + 1) % len(self.chips)
        if not self._usable(index) or not _due(self._set_up_at[index], now, CHECK_S):
            return
        try:
            running = self._io(index, chip_running)
        except OSError:
            return
        if not running:
            self._set_up_at[index] = now
            self._check(index, now)

    def _check_chips(self, now):
        """Each working chip checked (``_check``), each chip that does not answer told again,
        then each chip's failed transfers told."""
        self._checked_at = now
        for index in range(len(self.chips)):
            if self._usable(index):
                self._check(index, now)
            else:
                self._tell_deaf(index)
            if self.errors[index]:
                self._send(wire.Fault(wire.Fault.I2C_ERRORS, ADDRESSES[index], min(self.errors[index], 0xFFFF)))
                self.errors[index] = 0

    def _check(self, index, now):
        """Whether chip ``index`` answers; where a brown-out reset it (out of run mode, its
        configuration changed) or its out-of-range status turned up, it is set up again and the
        host told. A status that stays after that is a pad's own fault (a broken wire): told once,
        not set up again and again."""
        try:
            settled, status = self._io(index, chip_state)
        except OSError:
            self._lose(index, now)
            return False
        if settled and status == self.status[index]:
            return True
        if settled and not status:
            self.status[index] = 0
            return True
        if settled:
            self.status[index] = status
            fault = wire.Fault(wire.Fault.OUT_OF_RANGE, ADDRESSES[index], status)
        else:
            self.resets[index] += 1
            fault = wire.Fault(wire.Fault.RESET, ADDRESSES[index], min(self.resets[index], 0xFFFF))
        if not self._configure(index, now):
            self._lose(index, now)
            return False
        self._send(fault)
        return True

    def _retry(self, index, now):
        """Try a missing or failing chip again once RETRY_S has passed since the last try; True
        when it works now, set up afresh with the host's thresholds, and a log has said so."""
        missing = self.chips[index] is None
        if (missing and self.connect is None) or not _due(self.failing.get(index), now, RETRY_S):
            return False
        if missing:
            self.chips[index] = self.connect(ADDRESSES[index])
            if self.chips[index] is None:
                self.failing[index] = now
                return False
        if not self._configure(index, now):
            return False
        self._log("{} {}".format(_chip_name(index), "found: set up" if missing else "answering again: reconfigured"))
        self._send(wire.Fault(wire.Fault.NOT_ANSWERING, ADDRESSES[index], wire.CHIP_ANSWERS))
        if index in self.wrong_thresholds:
            self._log(self.wrong_thresholds[index])
        return True

    def _configure(self, index, now):
        """Set chip ``index`` up (again) and read its thresholds back; on failure it counts as
        failing and is retried later."""
        try:
            self._io(index, configure_chip, self._chip_thresholds(index))
            self._thresholds_taken(index)
        except (OSError, RuntimeError):
            self.failing[index] = now
            return False
        self.failing.pop(index, None)
        return True

    def _chip_thresholds(self, index):
        return self.thresholds[index * PINS:(index + 1) * PINS]

    def _thresholds_taken(self, index):
        """Whether chip ``index`` reads back the thresholds written to it. Where it does not,
        ``wrong_thresholds`` keeps a line saying so, a standing problem told after each hello. A
        host that speaks protocol 1.4 is told what the chip holds (a thresholds report) after
        each set-up and each write, so it knows which chips run its tuning.
        Raises OSError when the chip does not answer."""
        wanted = self._chip_thresholds(index)
        held = self._io(index, read_thresholds)
        if self.tell_thresholds:
            self._send(wire.Thresholds(ADDRESSES[index], tuple(held)))
        for pin in range(PINS):
            if held[pin] != wanted[pin]:
                self.wrong_thresholds[index] = "{} thresholds read back wrong: electrode {} holds {}/{}, not {}/{}".format(
                    _chip_name(index), index * PINS + pin, held[pin][0], held[pin][1], wanted[pin][0], wanted[pin][1])
                return False
        self.wrong_thresholds.pop(index, None)
        return True

    def _lose(self, index, now):
        self.failing[index] = now
        self._log(self._trouble(index))
        self._tell_deaf(index)

    def _tell_deaf(self, index):
        """Tell the host chip ``index`` does not answer: its pads are deaf until it does."""
        state = wire.CHIP_MISSING if self.chips[index] is None else wire.CHIP_STOPPED
        self._send(wire.Fault(wire.Fault.NOT_ANSWERING, ADDRESSES[index], state))

    def _trouble(self, index):
        state = "missing" if self.chips[index] is None else "not answering"
        return "{} {}: {} read untouched".format(_chip_name(index), state, _electrode_span(index))

    def _usable(self, index):
        return index < len(self.chips) and self.chips[index] is not None and index not in self.failing

    # --- frames out

    def _send(self, message):
        """Write one frame whole or not at all. A frame the port takes none of is dropped and
        uses no sequence number; one it takes only in part (its buffer full: the host is slow
        to read) has its tail written before anything else, and counts as sent once the last
        byte is out. While a tail waits, new frames are dropped, never cut in: the next touch
        report carries the whole state again."""
        if not self._flush():
            self.frames_dropped += 1
            return
        frame = wire.encode(message, self.seq)
        written = self._write(frame)
        if not written:
            self.frames_dropped += 1
            return
        self.seq = (self.seq + 1) & 0xFF
        self._tail = frame[written:]
        if not self._tail:
            self.frames_sent += 1

    def _flush(self):
        """Write what the port has not yet taken of the last frame; True when nothing is left.
        A host that has closed the port gets no tail: the next host starts on a whole frame."""
        if not self._tail:
            return True
        if not self.port.connected:
            self._tail = b""
            self.frames_dropped += 1
            return True
        self._tail = self._tail[self._write(self._tail):]
        if self._tail:
            return False
        self.frames_sent += 1
        return True

    def _write(self, data):
        """The bytes of ``data`` the port took: 0 when the host is away or the port fails."""
        if not self.port.connected:
            return 0
        try:
            return self.port.write(data)
        except OSError:
            return 0

    def _send_touch(self, now):
        self._last_touch_at = now
        self._send(wire.Touch(self.counter, self.mask))

    def _send_readings(self, now):
        """One round of a stream: a readings frame per working chip."""
        self._last_readings_at = now
        self.stream_rounds -= 1
        for index in range(len(self.chips)):
            if not self._usable(index):
                continue
            try:
                readings = self._io(index, read_chip, index * PINS)
            except OSError:
                self._lose(index, now)
                continue
            self._send(readings)

    def _log(self, text):
        self._send(wire.Log(text))

    def _hello(self):
        """Hello, then every standing problem, so a host that connects late still hears of them."""
        protocol = (wire.PROTOCOL_MAJOR, wire.PROTOCOL_MINOR)
        self._send(wire.Hello(protocol, self.firmware, self.board_id, ELECTRODES))
        if self.restart_cause:
            self._log("restart cause: {}".format(self.restart_cause))
        for index in range(len(self.chips)):
            if not self._usable(index):
                self._log(self._trouble(index))
                self._tell_deaf(index)
            elif index in self.wrong_thresholds:
                self._log(self.wrong_thresholds[index])
            if self.status[index]:
                self._send(wire.Fault(wire.Fault.OUT_OF_RANGE, ADDRESSES[index], self.status[index]))

    # --- commands in

    def _serve_host(self):
        try:
            data = self.port.read(READ_SIZE)
        except OSError:
            return
        if not data:
            return
        for _seq, message in self.decoder.feed(data):
            self._obey(message)

    def _obey(self, message):
        kind = message.TYPE
        if kind == wire.GetHello.TYPE:
            self.stream_rounds = 0  # a host opening the port afresh did not ask for the stream
            self.tell_thresholds = False  # nor, until it says it speaks 1.4, for thresholds reports
            self._hello()
        elif kind == wire.Ping.TYPE:
            self._send(wire.Pong(message.token))
        elif kind == wire.SetThresholds.TYPE:
            self._send(wire.Ack(kind, self._set_thresholds(message.first, message.pairs)))
        elif kind == wire.SetChipThresholds.TYPE:
            self.tell_thresholds = True
            self._send(wire.Ack(kind, self._set_chip_thresholds(message.chip, message.pairs)))
        elif kind == wire.Recalibrate.TYPE:
            self._send(wire.Ack(kind, self._recalibrate(message.mask)))
        elif kind == wire.StreamReadings.TYPE:
            self.stream_rounds = message.rounds
            self.stream_period_s = message.period_ms / 1000
            self._last_readings_at = None  # the first round at once
            self._send(wire.Ack(kind, wire.Ack.OK))
        elif kind == wire.Reset.TYPE:
            self._send(wire.Ack(kind, wire.Ack.OK))
            if self.reset is not None:
                self.reset()
        # Anything else is a board-to-host message echoed back: answering it could loop forever.

    def _set_thresholds(self, first, pairs):
        """Set the pairs on electrodes first, first+1, ...; all or nothing when one is unusable
        (protocol 1.0's meaning, kept: a host of 1.4 sends set-chip-thresholds instead).

        Each chip concerned is stopped once, gets its 12 pairs in one transfer, and is started
        once (which re-takes its baselines: see write_stopped), then its thresholds are read
        back: NOT_TAKEN when a chip holds others than were written (a log says where). If a
        chip stops answering midway, the status is BAD_ELECTRODE and the remembered thresholds
        reach it when it is reconfigured.
        """
        electrodes = range(first, first + len(pairs))
        if not all(self._usable(e // PINS) for e in electrodes):
            return wire.Ack.BAD_ELECTRODE  # past electrode 35 means past the last chip
        for offset in range(len(pairs)):
            self.thresholds[first + offset] = pairs[offset]
        status = wire.Ack.OK
        for index in range(first // PINS, (first + len(pairs) - 1) // PINS + 1):
            taken = self._write_thresholds(index)
            if taken is None:
                return wire.Ack.BAD_ELECTRODE
            if not taken:
                status = wire.Ack.NOT_TAKEN
        return status

    def _set_chip_thresholds(self, chip, pairs):
        """Keep ``pairs`` as chip ``chip``'s own (an I2C address) and write them where it answers.

        Kept whether or not the chip answers now: every later set-up of it (a chip missing at
        start, one answering again, one a brown-out reset) writes them, through the same
        ``_configure`` as a chip set up at start, so a chip that comes back runs its tuning."""
        if chip not in ADDRESSES or ADDRESSES.index(chip) >= len(self.chips):
            return wire.Ack.BAD_ELECTRODE
        index = ADDRESSES.index(chip)
        for pin in range(PINS):
            self.thresholds[index * PINS + pin] = pairs[pin]
        if not self._usable(index):
            return wire.Ack.KEPT
        taken = self._write_thresholds(index)
        if taken is None:
            return wire.Ack.KEPT
        return wire.Ack.OK if taken else wire.Ack.NOT_TAKEN

    def _write_thresholds(self, index):
        """Chip ``index``'s thresholds written and read back: True when it holds them, False when
        it reads back others (a log says where), None when it stopped answering. A chip a
        brown-out reset is set up whole first (these pairs with the rest); one that already holds
        them is not written, since a write restarts it and re-takes its baselines (a finger held
        is lost): a host that connects again costs the chips nothing."""
        if not self._check(index, self.clock()):
            return None
        wanted = self._chip_thresholds(index)
        try:
            if self._io(index, read_thresholds) != wanted:
                self._io(index, write_stopped, [(TOUCH_THRESHOLDS, _threshold_bytes(wanted))])
            if self._thresholds_taken(index):
                return True
        except OSError:
            self._lose(index, self.clock())
            return None
        self._log(self.wrong_thresholds[index])
        return False

    def _recalibrate(self, mask):
        """Re-take the baseline of the chips holding the masked electrodes (0: every chip).

        The chip is the unit: stop then run with CL 0b10 reloads all 12 baselines from the data.
        Each chip is checked first: starting a chip a brown-out reset would run it on its defaults.
        """
        if mask >> ELECTRODES:
            return wire.Ack.BAD_ELECTRODE
        if mask:
            indexes = [i for i in range(len(self.chips)) if mask >> (PINS * i) & 0xFFF]
            if not all(self._usable(i) for i in indexes):
                return wire.Ack.BAD_ELECTRODE
        else:
            indexes = [i for i in range(len(self.chips)) if self._usable(i)]
        for index in indexes:
            if not self._check(index, self.clock()):
                return wire.Ack.BAD_ELECTRODE
            try:
                self._io(index, retake_baselines)
            except OSError:
                self._lose(index, self.clock())
                return wire.Ack.BAD_ELECTRODE
        return wire.Ack.OK
