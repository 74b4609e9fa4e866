"""A stand-in for ``systemctl`` that runs a real Mosquitto (``helpers_machine.MosquittoUnit``): the root
helper's broker acts (pi_table/release/broker.py) call it as they call systemctl on a table, and
it starts Debian's mosquitto on the very files the helper wrote, as mosquitto.service does
(``mosquitto -c /etc/mosquitto/mosquitto.conf``, which includes conf.d/*.conf in their names' order:
pi-table.conf, then a league's bridge, pi-table.league.conf), with two swaps a test
needs: the listener's port (``listener 8883`` becomes the test's port on loopback), and a main
file of its own in place of Debian's (its log and sessions in the folder, run as this user).

``python fake_systemctl.py FOLDER ACT [--now] mosquitto.service``: ACT one of enable, disable,
restart, reload-or-restart (SIGHUP when it runs: Mosquitto reads its users again), stop and
is-active, each answered with systemctl's exit codes. FOLDER holds ``etc`` (the helper's
/etc/mosquitto), ``port``, the pid of the Mosquitto it runs, ``enabled`` and ``calls`` (a line each);
a file ``fail-next`` there makes the next start's Mosquitto refuse its files, as a bad one would."""

import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

FOLDER = Path(sys.argv[1])
ACT, REST = sys.argv[2], sys.argv[3:]
PID = FOLDER / "mosquitto.pid"
UNIT = "mosquitto.service"


def running() -> int | None:
    try:
        pid = int(PID.read_text())
        os.kill(pid, 0)
    except (OSError, ValueError):
        return None
    try:  # a zombie of an earlier run is no broker
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None
    return None if state == "Z" else pid


def stop() -> None:
    """Mosquitto sent SIGTERM, then SIGKILL if it has not gone within 5 s, as systemd does past its
    stop's timeout: a broker left behind would hold the port of the next start."""
    pid = running()
    if pid is None:
        return
    for sent in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.kill(pid, sent)
        except ProcessLookupError:  # gone meanwhile
            pass
        for _ in range(100):
            if running() is None:
                PID.unlink(missing_ok=True)
                return
            time.sleep(0.05)
    print(f"{UNIT}: mosquitto {pid} outlived SIGKILL", file=sys.stderr)


def start() -> int:
    """Mosquitto on the helper's files, listening on the test's port; 1 (and why, as systemd's
    journal would) when it exits or takes no connection."""
    etc, port = FOLDER / "etc", int((FOLDER / "port").read_text())
    settings = "".join(path.read_text() for path in sorted((etc / "conf.d").glob("*.conf")))  # include_dir's order
    if "listener 8883\n" not in settings:
        print(f"{UNIT}: the helper's pi-table.conf has no 'listener 8883'", file=sys.stderr)
        return 1
    main = FOLDER / "mosquitto.conf"
    refused = FOLDER / "fail-next"  # a test's word: Mosquitto refuses the files of its next start
    main.write_text(f"user {pwd.getpwuid(os.getuid()).pw_name}\npersistence_location {FOLDER}/\n"
                    f"log_dest file {FOLDER}/mosquitto.log\n"
                    + settings.replace("listener 8883\n", f"listener {port} 127.0.0.1\n")
                    + ("no_such_option true\n" if refused.exists() else ""))
    refused.unlink(missing_ok=True)
    program = shutil.which("mosquitto") or "/usr/sbin/mosquitto"  # Debian's is in sbin, off a user's PATH
    with open(FOLDER / "mosquitto.err", "ab") as errors:  # the child keeps its own copy of the descriptor
        process = subprocess.Popen([program, "-c", str(main)], stdout=subprocess.DEVNULL, stderr=errors,
                                   start_new_session=True)
    PID.write_text(str(process.pid))
    with open(FOLDER / "started", "a") as started:  # every one it started, for a test to see each gone at its end
        started.write(f"{process.pid}\n")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if process.poll() is not None:
            print(f"{UNIT}: mosquitto exited with {process.returncode}", file=sys.stderr)
            return 1
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return 0
        except OSError:
            time.sleep(0.05)
    print(f"{UNIT}: no connection on port {port}", file=sys.stderr)
    return 1


def main() -> int:
    with open(FOLDER / "calls", "a") as calls:
        calls.write(" ".join([ACT, *REST]) + "\n")
    if REST[-1:] != [UNIT]:
        print(f"fake systemctl: only {UNIT} here, not {REST}", file=sys.stderr)
        return 5
    if ACT == "enable":
        (FOLDER / "enabled").touch()
    elif ACT == "disable":
        (FOLDER / "enabled").unlink(missing_ok=True)
        if "--now" in REST:
            stop()
    elif ACT == "stop":
        stop()
    elif ACT == "restart":
        stop()
        return start()
    elif ACT == "reload-or-restart":
        pid = running()
        if pid is None:
            return start()
        os.kill(pid, signal.SIGHUP)
    elif ACT == "is-active":
        print("active" if running() is not None else "failed")
        return 0 if running() is not None else 3
    else:
        print(f"fake systemctl: {ACT} is not modelled", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
