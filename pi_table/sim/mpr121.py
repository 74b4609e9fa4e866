"""A register-level fake MPR121 on a fake I2C bus, for running the touch-board firmware off the board.

The firmware talks to its chips through the real ``adafruit_mpr121`` driver; here that driver
runs against ``FakeI2C`` (the part of ``busio.I2C`` that ``adafruit_bus_device`` uses) carrying
``FakeMPR121`` chips. The same file serves CPython (the firmware tests, the board emulator) and
MicroPython (tests/test_firmware_micropython.py runs the firmware there on these chips): so no
``from __future__``, and annotations only where CPython 3.11 can evaluate them and MicroPython
skips them. The fake follows the datasheet where the driver can see it:

- power-on and soft reset (0x80 <- 0x63): every register 0 except CONFIG1 (0x5C) = 0x10 and
  CONFIG2 (0x5D) = 0x24, so the chip starts in stop mode (ECR 0x5E = 0);
- the register pointer auto-increments on multi-byte reads and writes (``burst_writes`` False:
  a chip whose pointer stays put on writes, every byte of a multi-byte write landing on its
  first register, to show that the firmware notices);
- writes other than ECR and the GPIO block (0x73-0x7A) take effect only in stop mode; in run
  mode they are ignored (and counted in ``ignored_writes``);
- filtered data 0x04-0x1D (10 bits, low byte first) and baseline 0x1E-0x2A (the top 8 of the
  10-bit baseline, so the driver reads ``value << 2``);
- touch status 0x00/0x01: an electrode becomes touched when baseline - data > its touch
  threshold and released when baseline - data < its release threshold; all clear in stop mode
  and for electrodes that ECR does not enable;
- entering run mode from stop loads the baseline from the data as ECR's CL bits say: 0b10 the
  top 5 of the 10 bits (so the baseline starts up to 31 counts low), 0b11 all 10 bits, 0b00 and
  0b01 keep the baseline registers.

- out-of-range status 0x02/0x03 and the over-current flag (bit 7 of 0x01) read what a test sets
  in ``out_of_range``, ``status_flags`` and ``over_current``;
- ``ecr_writes`` and ``restarts`` (stop to run) count what re-takes the baselines on the real
  chip, so tests can hold the firmware to one restart per update;
- with ``tracking`` on (the board emulator's chips), the rising baseline filter as the firmware
  sets it (follow at once): an untouched electrode whose data is above its baseline has the
  baseline raised to the data at the next sample, so a pad's baseline settles at the top of its
  noise. The real chip moves one count a sample and catches up in about 0.1 s after a re-take.

- ``power_on_reset()`` is also what a brown-out does to a real chip: it comes back in stop mode
  with every register at its default, so its status reads 0 and nothing is touched.

Not modelled: the falling and touched baseline filters (a drifted-low pad stays drifted until a
re-take), debounce, charge current and time (filtered data is whatever ``set_filtered`` says),
autoconfiguration (so nothing sets out-of-range by itself), the proximity channel's touch
status, GPIO and LED behaviour, the pointer's wrap at the end of a register block, and the time
any of it takes.
"""

import errno

TYPE_CHECKING = False  # mypy takes this name as true; MicroPython (tests/micropython/rig.py) has no typing module
if TYPE_CHECKING:
    from collections.abc import Callable

TOUCH_STATUS = 0x00
OUT_OF_RANGE = 0x02
FILTERED_DATA = 0x04
BASELINE = 0x1E
TOUCH_THRESHOLD = 0x41
CONFIG1 = 0x5C
CONFIG2 = 0x5D
ECR = 0x5E
GPIO_FIRST, GPIO_LAST = 0x73, 0x7A
SOFT_RESET = 0x80
SOFT_RESET_KEY = 0x63
PINS = 12
CHANNELS = 13  # 12 electrodes and the proximity channel
UNTOUCHED = 720  # a pad at rest: about where autoconfiguration aims (TL 181 << 2 for 3.3 V)


class FakeMPR121:
    """One MPR121's register file and touch logic, seen through ``i2c_write`` and ``i2c_read``.

    Tests and the board emulator move the pads with ``touch``, ``release`` and ``set_filtered``.
    """

    def __init__(self, untouched: int = UNTOUCHED, tracking: bool = False, burst_writes: bool = True) -> None:
        self.untouched = untouched
        self.tracking = tracking
        self.burst_writes = burst_writes
        self.filtered = [untouched] * CHANNELS
        self.ignored_writes = 0
        self.ecr_writes = 0
        self.restarts = 0
        self.out_of_range = 0  # bit n: electrode n out of range (register 0x02-0x03)
        self.status_flags = 0  # bit 7 ACFF, bit 6 ARFF: the top bits of register 0x03
        self.over_current = False
        self.power_on_reset()

    def power_on_reset(self) -> None:
        """What a power cycle or a soft reset does: defaults everywhere, stop mode, baseline 0."""
        self.registers = bytearray(0x80)
        self.registers[CONFIG1] = 0x10
        self.registers[CONFIG2] = 0x24
        self.baseline = [0] * CHANNELS
        self.touched = 0
        self.pointer = 0

    # --- what a test or the emulator does to the pads

    def set_filtered(self, pin: int, value: int) -> None:
        """The pad's 10-bit filtered reading: lower means more capacitance (a finger, a spill)."""
        self.filtered[pin] = max(0, min(1023, value))

    def touch(self, pin: int, margin: int = 4) -> None:
        """Press the pad: its data goes ``margin`` counts past the touch threshold."""
        self.set_filtered(pin, self.baseline[pin] - self.registers[TOUCH_THRESHOLD + 2 * pin] - margin)

    def release(self, pin: int) -> None:
        """Lift the finger: the pad reads its untouched level again."""
        self.set_filtered(pin, self.untouched)

    # --- what the chip shows

    @property
    def running(self) -> bool:
        """Run mode: ECR enables some electrode or the proximity channel."""
        return self.registers[ECR] & 0x3F != 0

    def read_register(self, register: int) -> int:
        """The byte an I2C read of ``register`` returns."""
        if register in (TOUCH_STATUS, TOUCH_STATUS + 1):
            self._sample()
            return (self.touched >> (8 * register) & 0xFF) | (0x80 if register and self.over_current else 0)
        if register == OUT_OF_RANGE:
            return self.out_of_range & 0xFF
        if register == OUT_OF_RANGE + 1:
            return (self.out_of_range >> 8 & 0x1F) | self.status_flags
        if FILTERED_DATA <= register < BASELINE:
            value = self.filtered[(register - FILTERED_DATA) // 2]
            return value >> 8 if (register - FILTERED_DATA) % 2 else value & 0xFF
        if BASELINE <= register < BASELINE + CHANNELS:
            return self.baseline[register - BASELINE] >> 2
        if register < len(self.registers):
            return self.registers[register]
        return 0

    def write_register(self, register: int, value: int) -> None:
        """An I2C write of one byte to ``register``, with the chip's stop-mode rule."""
        if register == SOFT_RESET:
            if value == SOFT_RESET_KEY:
                self.power_on_reset()
        elif register == ECR:
            self._set_ecr(value)
        elif GPIO_FIRST <= register <= GPIO_LAST:
            self.registers[register] = value
        elif self.running or register >= len(self.registers):
            self.ignored_writes += 1
        elif BASELINE <= register < BASELINE + CHANNELS:
            self.baseline[register - BASELINE] = value << 2
        elif register >= BASELINE + CHANNELS:
            self.registers[register] = value  # 0x00-0x1D are read-only: status and data

    def _set_ecr(self, value: int) -> None:
        was_running = self.running
        self.registers[ECR] = value
        self.ecr_writes += 1
        if not self.running:
            self.touched = 0
        elif not was_running:
            self.restarts += 1
            calibration_lock = value >> 6
            for channel, data in enumerate(self.filtered):
                if calibration_lock == 0b10:
                    self.baseline[channel] = data & 0x3E0
                elif calibration_lock == 0b11:
                    self.baseline[channel] = data

    def _sample(self) -> None:
        """One touch decision per electrode, with the threshold hysteresis."""
        if not self.running:
            self.touched = 0
            return
        enabled = min(self.registers[ECR] & 0x0F, PINS)
        for pin in range(PINS):
            bit = 1 << pin
            if pin >= enabled:
                self.touched &= ~bit
                continue
            delta = self.baseline[pin] - self.filtered[pin]
            if delta > self.registers[TOUCH_THRESHOLD + 2 * pin]:
                self.touched |= bit
            elif delta < self.registers[TOUCH_THRESHOLD + 2 * pin + 1]:
                self.touched &= ~bit
            if self.tracking and delta < 0 and not self.touched & bit:
                self.baseline[pin] = self.filtered[pin]

    # --- the I2C side

    def i2c_write(self, data: bytes) -> None:
        """A write transaction: the first byte sets the register pointer, the rest are stored."""
        if not data:
            return  # an address-only write: what a bus probe does
        self.pointer = data[0]
        for value in data[1:]:
            self.write_register(self.pointer, value)
            if self.burst_writes:
                self.pointer += 1

    def i2c_read(self, count: int) -> bytes:
        """A read transaction from the register pointer on."""
        out = bytes(self.read_register(self.pointer + i) for i in range(count))
        self.pointer += count
        return out


class FakeI2C:
    """What ``adafruit_bus_device.I2CDevice`` uses of ``busio.I2C``, with devices by address.

    As on CircuitPython, every transfer needs the lock (``RuntimeError`` otherwise) and an address
    that does not answer raises ``OSError`` ENODEV. ``unplug(address)`` makes a device stop
    answering while keeping its registers (a loose wire); ``plug`` brings it back.
    ``transactions`` counts transfers, so tests can check what one scan costs on the bus.

    What a café's electricity does to a bus, for the firmware's tests:

    - ``fail_one_in(n)``: about one transfer in ``n`` fails with ``OSError`` EIO before it reaches
      a chip (a spike on SDA or SCL), drawn from a fixed sequence so every run fails the same ones;
      ``fail_next(count)``: the next ``count`` transfers fail so; ``fail_for(seconds)``: every
      transfer fails so for that long on the bus's ``clock`` (a burst); ``failed`` counts them;
    - ``hold_sda(clocks)``: a chip holds SDA low, as one does when the master stopped in the middle
      of a byte it was reading: every transfer fails with EIO, and ``reopen`` (busio.I2C made again)
      raises RuntimeError as CircuitPython does on a line that reads low. The chip lets go after
      ``clocks`` more SCL clocks (at most 9: the rest of its byte and the acknowledge), which the
      master can give only on the pins themselves: ``line("SCL")`` and ``line("SDA")``, usable
      while the bus is deinitialised, as digitalio's pins are. ``clocks`` and ``stops`` count the
      clocks and the STOP conditions (SDA rising while SCL is high) given on them;
    - ``hold_scl()``: a chip holds SCL low (``release_scl()`` lets go): each transfer waits
      ``timeout_s`` on the bus's ``wait`` (CircuitPython's RP2040 busio waits 1 s) and fails with
      ``OSError`` ETIMEDOUT, but a zero-byte write (a driver's probe for a chip) fails with EIO
      after the same wait, as the RP2040 port's bitbangio does with it; ``reopen`` raises
      RuntimeError, as SCL reads low; nine clocks do not free it (UM10204 leaves a held clock to a
      power cycle).
    """

    def __init__(self, devices: dict[int, FakeMPR121] | None = None, clock: "Callable[[], float] | None" = None,
                 wait: "Callable[[float], object] | None" = None) -> None:
        self.devices: dict[int, FakeMPR121] = dict(devices or {})
        self.clock = clock  # seconds, for fail_for
        self.wait = wait  # lets seconds pass on that clock, for a transfer that times out
        self.timeout_s = 1.0  # how long a transfer waits on a held SCL (CircuitPython's RP2040 port)
        self.scl_held = False
        self.unplugged: set[int] = set()
        self.transactions = 0
        self.failed = 0
        self.deinited = False
        self.sda_held = 0  # SCL clocks the chip holding SDA low still waits for; 0: SDA is free
        self.clocks = 0
        self.stops = 0
        self.driven_low: set[str] = set()  # the lines the master pulls low through digitalio
        self.pull_ups = True
        self._one_in = 0
        self._draw = 1
        self._fail_next = 0
        self._fail_until = None  # type: float | None
        self._locked = False

    def attach(self, address: int, device: FakeMPR121) -> FakeMPR121:
        self.devices[address] = device
        return device

    def unplug(self, address: int) -> None:
        self.unplugged.add(address)

    def plug(self, address: int) -> None:
        self.unplugged.discard(address)

    def fail_one_in(self, n: int) -> None:
        """From now on about one transfer in ``n`` fails (0: none)."""
        self._one_in = n

    def fail_next(self, count: int) -> None:
        """The next ``count`` transfers fail."""
        self._fail_next = count

    def fail_for(self, seconds: float) -> None:
        """Every transfer fails for ``seconds`` from now on the bus's clock: a burst of disturbance."""
        assert self.clock is not None, "a burst is timed on the bus's clock: FakeI2C(clock=...)"
        self._fail_until = self.clock() + seconds

    def hold_scl(self) -> None:
        """A chip holds SCL low until ``release_scl``."""
        self.scl_held = True

    def release_scl(self) -> None:
        self.scl_held = False

    def hold_sda(self, clocks: int = 9) -> None:
        """A chip holds SDA low until SCL has been clocked ``clocks`` times."""
        self.sda_held = clocks

    # --- busio.I2C's life: deinit, and made again on the same pins

    def deinit(self) -> None:
        self.deinited = True

    def reopen(self) -> "FakeI2C":
        """busio.I2C made again: CircuitPython first checks both lines read high (its pull-up test),
        and where one does not it leaves the pins free and raises."""
        if not (self.level("SDA") and self.level("SCL")):
            self.deinited = True
            raise RuntimeError("No pull up found on SDA or SCL; check your wiring")  # as the real busio does
        self.deinited = False
        return self

    def line(self, name: str) -> "FakeLine":
        """The pin under SCL or SDA as digitalio gives it; only while busio holds neither."""
        if not self.deinited:
            raise ValueError(name + " in use")  # as the real digitalio does
        return FakeLine(self, name)

    def level(self, name: str) -> bool:
        """What a line reads: high (the pull-ups) unless the master or a chip pulls it low, or the
        breakouts' pull-ups are not there (``pull_ups`` False: the I2C cable unplugged)."""
        return (self.pull_ups and name not in self.driven_low and not (name == "SDA" and self.sda_held)
                and not (name == "SCL" and self.scl_held))

    def drive(self, name: str, low: bool) -> None:
        """The master pulls ``name`` low, or lets it go: a rising SCL is a clock, SDA rising while
        SCL is high a STOP."""
        rising = not low and name in self.driven_low
        if low:
            self.driven_low.add(name)
        else:
            self.driven_low.discard(name)
        if rising and name == "SCL":
            self.clocks += 1
            self.sda_held = max(0, self.sda_held - 1)
        elif rising and name == "SDA" and self.level("SCL") and self.level("SDA"):
            self.stops += 1

    # --- what adafruit_bus_device uses

    def try_lock(self) -> bool:
        if self._locked:
            return False
        self._locked = True
        return True

    def unlock(self) -> None:
        self._locked = False

    def scan(self) -> list[int]:
        self._check_lock()
        return sorted(address for address in self.devices if address not in self.unplugged)

    def writeto(self, address: int, buffer: bytes | bytearray | memoryview, *, start: int = 0, end: int | None = None) -> None:
        if not buffer[start:end] and self.scl_held:
            # CircuitPython's RP2040 busio sends a zero-byte write through bitbangio, which waits on a
            # held SCL as long and fails it with EIO, not ETIMEDOUT
            self._check_lock()
            self.transactions += 1
            self.failed += 1
            if self.wait is not None:
                self.wait(self.timeout_s)
            raise OSError(errno.EIO, "Input/output error")  # as the real bus does
        self._device(address).i2c_write(bytes(buffer[start:end]))

    def readfrom_into(self, address: int, buffer: bytearray | memoryview, *, start: int = 0, end: int | None = None) -> None:
        end = len(buffer) if end is None else end
        buffer[start:end] = self._device(address).i2c_read(end - start)

    def writeto_then_readfrom(
        self, address: int, buffer_out: bytes | bytearray | memoryview, buffer_in: bytearray | memoryview, *, out_start: int = 0, out_end: int | None = None,
        in_start: int = 0, in_end: int | None = None,
    ) -> None:
        device = self._device(address)
        in_end = len(buffer_in) if in_end is None else in_end
        device.i2c_write(bytes(buffer_out[out_start:out_end]))
        buffer_in[in_start:in_end] = device.i2c_read(in_end - in_start)

    def _check_lock(self) -> None:
        if self.deinited:
            # as the real busio does
            raise ValueError("Object has been deinitialized and can no longer be used. Create a new object.")
        if not self._locked:
            raise RuntimeError("Function requires lock")  # as the real busio does

    def _device(self, address: int) -> FakeMPR121:
        self._check_lock()
        self.transactions += 1
        if self.scl_held:
            if self.wait is not None:
                self.wait(self.timeout_s)
            self.failed += 1
            raise OSError(errno.ETIMEDOUT, "Connection timed out")  # as the real bus does
        if self.sda_held or self._spiked():
            self.failed += 1
            raise OSError(errno.EIO, "Input/output error")  # as the real bus does
        if address not in self.devices or address in self.unplugged:
            raise OSError(errno.ENODEV, "No such device")  # as the real bus does
        return self.devices[address]

    def _spiked(self) -> bool:
        """Whether this transfer fails: one of the next ``fail_next``, or one of the one in ``n``,
        a fixed sequence of draws (the ZX81's generator: small numbers, the same on CPython and
        MicroPython)."""
        if self._fail_next:
            self._fail_next -= 1
            return True
        if self._fail_until is not None and self.clock is not None and self.clock() < self._fail_until:
            return True  # (fail_for set the burst's end on the clock)
        if not self._one_in:
            return False
        self._draw = (self._draw * 75 + 74) % 65537
        return self._draw % self._one_in == 0


class FakeLine:
    """A pin under one of the bus's lines as digitalio drives it for a bus clear: open drain,
    an output driven low or an input left to the pull-ups."""

    def __init__(self, bus: FakeI2C, name: str) -> None:
        self.bus = bus
        self.name = name

    def switch_to_output(self, value: bool = False, drive_mode: object = None) -> None:
        self.bus.drive(self.name, low=not value)

    def switch_to_input(self, pull: object = None) -> None:
        self.bus.drive(self.name, low=False)

    @property
    def value(self) -> bool:
        return self.bus.level(self.name)

    def deinit(self) -> None:
        self.bus.drive(self.name, low=False)
