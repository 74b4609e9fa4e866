"""The owner's console: this computer's readings from /sys and /proc (a fake root here, as a Pi
lays them out), what they say needs attention, the headline, and the log's filter."""

from __future__ import annotations

import logging

import pytest

from pi_table.host import Power, Readings, read
from pi_table.web.sections.health import ALL_GOOD, filtered, headline, level_of, of_machine, said

MEMINFO = "MemTotal:        3884096 kB\nMemFree:          100000 kB\nMemAvailable:    2048000 kB\n"


def pi_root(tmp_path, throttled: str = "0", temp: str = "48312"):
    """/sys and /proc as a Raspberry Pi 4's kernel shows them."""
    zone = tmp_path / "sys/class/thermal/thermal_zone0"
    zone.mkdir(parents=True)
    (zone / "type").write_text("cpu-thermal\n")
    (zone / "temp").write_text(temp + "\n")
    firmware = tmp_path / "sys/devices/platform/soc/soc:firmware"
    firmware.mkdir(parents=True)
    (firmware / "get_throttled").write_text(throttled + "\n")
    (tmp_path / "proc").mkdir()
    (tmp_path / "proc/meminfo").write_text(MEMINFO)
    (tmp_path / "proc/uptime").write_text("12345.67 45678.90\n")
    return tmp_path


def readings(**changes) -> Readings:
    fine = dict(disk_free_mb=5000.0, disk_total_mb=29000.0, cpu_temp_c=50.0, power=Power.from_bits(0),
                memory_available_mb=2000.0, memory_total_mb=3800.0, uptime_s=100.0)
    return Readings(**{**fine, **changes})


def test_a_pis_readings_are_read_from_sys_and_proc(tmp_path):
    found = read(tmp_path, pi_root(tmp_path, throttled="50005"))
    assert found.cpu_temp_c == 48.3
    assert found.power == Power(under_voltage=True, throttled=True, too_hot=False, under_voltage_since_boot=True,
                                throttled_since_boot=True, too_hot_since_boot=False)
    assert (found.memory_total_mb, found.memory_available_mb) == (3793.1, 2000.0)
    assert found.uptime_s == 12345.67
    assert found.disk_free_mb is not None and 0 < found.disk_free_mb <= found.disk_total_mb
    assert found.to_json()["power"]["under_voltage"] is True


def test_off_a_pi_what_is_missing_is_none_not_an_error(tmp_path):
    found = read(tmp_path / "no-such-folder", tmp_path)
    assert found == Readings(None, None, None, None, None, None, None)
    assert of_machine(found) == []


@pytest.mark.parametrize("throttled", ["", "garbage", "0xZZ"])
def test_a_firmware_flag_file_that_is_not_a_number_is_no_reading(tmp_path, throttled):
    assert read(tmp_path, pi_root(tmp_path, throttled=throttled, temp="not a number")).power is None


def test_the_cpu_zone_is_preferred_to_other_zones(tmp_path):
    root = pi_root(tmp_path, temp="61000")
    other = root / "sys/class/thermal/thermal_zone1"
    other.mkdir()
    (other / "type").write_text("battery\n")
    (other / "temp").write_text("20000\n")
    (root / "sys/class/thermal/thermal_zone0").rename(root / "sys/class/thermal/thermal_zone2")
    assert read(tmp_path, root).cpu_temp_c == 61.0


def test_healthy_readings_need_nothing():
    assert of_machine(readings()) == []
    assert headline([], "en") == {"ok": True, "text": str(ALL_GOOD), "advice": None, "more": 0}
    assert headline([], "it")["text"].startswith("Tutto bene")


@pytest.mark.parametrize(("changes", "words"), [
    ({"power": Power.from_bits(0x50005)}, "under-voltage now"),
    ({"power": Power.from_bits(0x50000)}, "dipped"),
    ({"disk_free_mb": 120.0}, "120 MB free"),
    ({"cpu_temp_c": 82.4}, "82 °C"),
    ({"power": Power.from_bits(0x80008)}, "too hot"),
    ({"memory_available_mb": 20.0}, "Memory is almost used up"),
])
def test_each_reading_past_its_line_says_what_and_what_to_do(changes, words):
    [found] = said(of_machine(readings(**changes)), "en")
    assert words in found["what"] and found["advice"]
    line = headline([found], "en")
    assert line == {"ok": False, "text": found["what"], "advice": found["advice"], "more": 0}


def test_the_most_urgent_comes_first_and_the_rest_are_counted():
    found = said(of_machine(readings(power=Power.from_bits(0x1), disk_free_mb=10.0, cpu_temp_c=90.0)), "it")
    assert len(found) == 3
    line = headline(found, "it")
    assert line["more"] == 2 and "sottotensione" in line["text"]


def test_the_log_is_filtered_by_level_and_search():
    lines = [(logging.INFO, "12:00 INFO table up"), (logging.WARNING, "12:01 WARNING board unplugged"),
             (logging.ERROR, "12:02 ERROR Journal full")]
    assert filtered(lines, level_of("warning"), "") == [line for _, line in lines[1:]]
    assert filtered(lines, level_of(None), "journal") == ["12:02 ERROR Journal full"]
    assert filtered(lines, level_of("ERROR"), "board") == []
    assert level_of("loud") is None
