#!/usr/bin/env bash
# Install pi-table as a service on Raspberry Pi OS (Bookworm), from this checkout:
#
#   sudo systemd/install.sh
#
# Installs the system packages, turns on SPI and I2C, sets up in config.txt the display that
# [screen] panel names and the I2S amplifier (when hardware/pinout.toml fits one), creates the user pi-table in the device groups, puts pi-table into
# a release under /opt/pi-table/releases (current: the one running), writes /etc/pi-table/config.toml from the defaults when there is none
# (an existing one is checked, never overwritten), installs and enables pi-table.service and
# (re)starts it. It first checks what every step needs (root, the
# checkout, Python, free space, every package in apt's sources) and changes nothing when one
# is missing; every step looks before it acts, so running it again (after a `git pull`, say)
# upgrades: a new release beside the running one, switched to in one step. The commands' output goes to /var/log/pi-table-install.log; a failure says
# in one line what failed and how to go on, then shows the log's last lines.
#
# Where the packages come from: all from Debian's archive, which Raspberry Pi OS includes,
# except python3-lgpio (gpiozero's pin library on every Pi), which only Raspberry Pi OS's own
# archive (archive.raspberrypi.com) has. On a machine that is not a Pi (a plain Debian, the
# test container) it is skipped with a note: there are no GPIO pins to drive.
#
# PI_TABLE_ROOT stages every file it writes or reads under another root (the tests run it so,
# with the system commands stubbed); PI_TABLE_NO_START=1 enables the unit without starting it;
# PI_TABLE_BUNDLE=FILE installs that signed bundle's release (its wheels, built for the Pi)
# instead of building this checkout's, checked against the keyring as an update is: the SD
# image's builder (pi-table image, docs/dev/image.md) runs it so, in the image, from the
# checkout at the bundle's commit; PI_TABLE_ONLY_PACKAGES=1 stops after the system packages.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
root=${PI_TABLE_ROOT:-}
user=pi-table
groups=(gpio spi i2c dialout video input render audio)
prefix=$root/opt/pi-table
venv=$prefix/venv
config=$root/etc/pi-table/config.toml
unit_dir=$root/etc/systemd/system
log=$root/var/log/pi-table-install.log
python=${PYTHON:-python3}
bundle=${PI_TABLE_BUNDLE:-}
need_mb=300  # the venv with aiohttp and rpi-ws281x's build: about 100 MB

say() { printf 'install: %s\n' "$*"; }
fail() { printf 'install: %s\n' "$*" >&2; exit 1; }
step=""
begin() { step=$1; say "$1"; printf '\n=== %s\n' "$1" >> "$log"; }
# run HINT COMMAND...: the command's output into the log; on failure one line on what failed
# and how to go on, then the log's tail.
run() {
  local hint=$1 status=0; shift
  printf '$ %s\n' "$*" >> "$log"
  "$@" >> "$log" 2>&1 || status=$?
  if [ "$status" != 0 ]; then
    printf 'install: FAILED at "%s": %s exited %s; %s, then run install.sh again (the whole log: %s)\n' \
      "$step" "$1" "$status" "$hint" "${log#"$root"}" >&2
    tail -n 25 "$log" | sed 's/^/  | /' >&2
    exit 1
  fi
}

# 0. What every step needs, checked before anything changes.
[ "$(id -u)" = 0 ] || [ -n "$root" ] || fail "run it as root: sudo $0"
[ -f "$src/pyproject.toml" ] && [ -f "$src/systemd/pi-table.service" ] \
  || fail "$src is not a pi-table checkout (no pyproject.toml or systemd/pi-table.service)"
[ -z "$bundle" ] || [ -f "$bundle" ] || fail "PI_TABLE_BUNDLE names $bundle, which is no file; expected a bundle pi-table bundle made"
mkdir -p "$(dirname "$log")"
: > "$log"

model=""
[ -r "$root/proc/device-tree/model" ] && model=$(tr -d '\0' < "$root/proc/device-tree/model")
say "machine: ${model:-not a Raspberry Pi (no /proc/device-tree/model)}"
on_pi=0
case "$model" in *"Raspberry Pi"*) on_pi=1 ;; esac

"$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null \
  || fail "pi-table needs Python 3.11 or newer (Raspberry Pi OS Bookworm's); $python is $("$python" --version 2>&1)"
space=$root/opt
while [ ! -d "$space" ]; do space=$(dirname "$space"); done
free_mb=$(( $(df -Pk "$space" | awk 'NR == 2 { print $4 }') / 1024 ))
[ "$free_mb" -ge "$need_mb" ] || fail "only $free_mb MB free in $space; pi-table needs $need_mb MB: free some, then run install.sh again"

# The LED strip's library follows the configuration's backend: rpi-ws281x (Pi 3, 4), compiled
# here as it has no aarch64 wheel, or spidev (Pi 5; Debian's). A new table's configuration
# gets the spi backend on a Pi 5, the defaults' ws281x elsewhere.
# The screen, when the configuration has one, needs the KMS display driver at boot, and the
# panel it names ([screen] panel; the defaults' is the Touch Display 2, 7 inch) its overlay.
backend=ws281x
case "$model" in *"Raspberry Pi 5"*) backend=spi ;; esac
screen=True
panel=touch-display-2-7
if [ -e "$config" ]; then
  read -r backend screen panel < <("$python" -c 'import sys, tomllib
with open(sys.argv[1], "rb") as file:
    settings = tomllib.load(file)
screen = settings.get("screen", {})
print(settings.get("leds", {}).get("backend", "ws281x"), screen.get("enabled", True), screen.get("panel", "-"))' \
    "$config" 2>/dev/null || echo "$backend $screen $panel")
  if [ "$panel" = - ]; then  # an older table's file: it predates [screen] panel
    panel=touch-display-2-7
    [ "$screen" = True ] && say "note: ${config#"$root"} names no [screen] panel: set up for the default, $panel; for another display set panel (hdmi, touch-display-1, touch-display-2-5) and panel_rotation there and run install.sh again"
  fi
fi
say "LED strip: $backend; screen: $([ "$screen" = True ] && echo "$panel" || echo none)"

# Debian's pygame is built with KMSDRM (the PyPI wheel is not), gpiozero with lgpio drives the
# buttons on every Pi, spidev the Pi 5's LED strip; gcc and the Python headers build rpi-ws281x;
# openssh-client's ssh-keygen checks a release's signature (Raspberry Pi OS has it already).
# paho-mqtt ([fleet]) comes from PyPI into the venv: Debian 13's python3-paho-mqtt (2.1) would
# serve, but Debian 12's (1.6) is older than the 2.x the reporter is written for.
# unattended-upgrades applies Debian's security updates when the table asks (pi-table-security.service).
# mosquitto is the café's broker, should the owner make this table the broker on its staff page
# (docs/cafe/dashboard.md): off until then (below); openssl makes its certificates.
# rclone copies the nightly backup to the network place the owner gives (docs/cafe/backup.md).
# Tesseract with its English and Italian data reads the cards from the spymaster's photo, through
# Debian's python3-tesserocr (PyPI has no aarch64 wheel of it), which brings python3-pil; numpy finds
# the cards in the picture (pyproject.toml's cards extra is for other machines; docs/dev/cards.md).
packages=(python3 python3-venv python3-pip python3-pygame python3-gpiozero python3-spidev python3-serial
          openssh-client unattended-upgrades mosquitto openssl rclone
          tesseract-ocr tesseract-ocr-eng tesseract-ocr-ita python3-tesserocr python3-numpy)
# (A bundle's wheels are built already: nothing is compiled.)
[ "$backend" = ws281x ] && [ -z "$bundle" ] && packages+=(python3-dev gcc libc6-dev)
begin "system packages: checking apt's sources"
run "check the network and apt's sources (/etc/apt/sources.list.d)" apt-get update
missing=()
for package in "${packages[@]}" python3-lgpio; do
  policy=$(apt-cache policy "$package" 2>/dev/null)  # whole: grep -q would cut its pipe short
  [[ $policy == *"Candidate: "[!\(]* ]] || missing+=("$package")
done
if [ "${missing[*]}" = python3-lgpio ] && [ "$on_pi" = 0 ]; then
  say "note: python3-lgpio skipped: only Raspberry Pi OS's archive has it, and this is not a Pi (no GPIO pins)"
elif [ ${#missing[@]} -gt 0 ]; then
  hint="a plain Debian has all but python3-lgpio, which needs Raspberry Pi OS's archive (archive.raspberrypi.com)"
  fail "FAILED at \"$step\": apt's sources offer no ${missing[*]}; $hint; nothing was changed"
else
  packages+=(python3-lgpio)
fi

# 1. System packages.
begin "system packages: ${packages[*]}"
had_mosquitto=0
[ -e "$root/usr/sbin/mosquitto" ] && had_mosquitto=1
run "see why apt-get failed in the log" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y --no-install-recommends "${packages[@]}"
# Debian's mosquitto starts when it comes (on loopback, open to anyone on the machine): newly
# installed here, it is turned off until the owner makes this table the café's broker (its root
# helper then enables it); one that was here before is left as it was.
if [ "$had_mosquitto" = 0 ] && [ -e "$root/usr/sbin/mosquitto" ]; then
  if [ -z "$root" ] && [ -d /run/systemd/system ]; then
    run "see the log" systemctl disable --now mosquitto.service
  else
    run "see the log" systemctl disable mosquitto.service  # the SD image's root: nothing runs there
  fi
fi
# PI_TABLE_ONLY_PACKAGES=1: this far and no further (the SD image's builder keeps a base with the
# packages in, the slow part under emulation, and runs the whole of this on it again).
if [ "${PI_TABLE_ONLY_PACKAGES:-0}" = 1 ]; then
  say "system packages installed; nothing else done (PI_TABLE_ONLY_PACKAGES=1)"
  exit 0
fi

# 2. SPI for the LED strip, I2C for a local MPR121; a fixed core clock keeps the Pi 3's and 4's
#    SPI rate steady for rpi-ws281x (its README); the Pi 5 drives the strip with spidev instead.
#    These take effect at the next boot: each is said, and the summary repeats them.
#    Off a Pi (an SD image being built, a Debian without raspi-config) the same two lines of
#    config.txt that raspi-config writes, set below with the others.
reboot_changes=()
raspi_config=0
if command -v raspi-config >/dev/null && [ "$on_pi" = 1 ]; then
  raspi_config=1
  begin "SPI and I2C on"
  for interface in spi i2c; do  # get_spi prints 0 when it is on
    [ "$(raspi-config nonint "get_$interface" 2>/dev/null)" = 0 ] && continue
    run "turn ${interface^^} on with 'sudo raspi-config' (Interface Options)" raspi-config nonint "do_$interface" 0
    reboot_changes+=("${interface^^} on (raspi-config)")
  done
fi
boot_config=$root/boot/firmware/config.txt
[ -f "$boot_config" ] || boot_config=$root/boot/config.txt

# set_boot PATTERN LINE: one setting of config.txt, on one line. Lines matching PATTERN
# (grep -E, whole line) are the setting's earlier values, this installer's or the maker's: the
# first is made LINE, or taken out when LINE is empty, and any more are taken out; with none,
# LINE is added at the end, under [all] (the file may end inside a section for another model:
# [pi4], [cm5]...). Run again, it changes nothing.
set_boot() {
  local pattern=$1 line=$2 found
  [ -f "$boot_config" ] || return 0
  found=$(grep -Ex -- "$pattern" "$boot_config" || true)
  [ "$found" = "$line" ] && return 0
  if [ -n "$found" ]; then
    awk -v pattern="^($pattern)\$" -v new="$line" '
      $0 ~ pattern { if (!done && new != "") print new; done = 1; next } { print }' "$boot_config" > "$boot_config.new"
    cat "$boot_config.new" > "$boot_config" && rm "$boot_config.new"  # the file's own mode and owner kept
    found=$(printf '%s' "$found" | paste -sd ' ' | sed 's/ /, /g')
    if [ -n "$line" ]; then boot_changed "$line in place of $found"; else boot_changed "$found taken out"; fi
  elif [ -n "$line" ]; then
    [ "$(grep -x '\[.*\]' "$boot_config" | tail -n 1)" = "[all]" ] || printf '[all]\n' >> "$boot_config"
    printf '%s\n' "$line" >> "$boot_config"
    boot_changed "$line"
  fi
}
boot_changed() {
  say "$1 in ${boot_config#"$root"} (takes effect at the next boot)"
  reboot_changes+=("$1 in ${boot_config#"$root"}")
}

if [ "$raspi_config" = 0 ]; then
  set_boot 'dtparam=spi=.*' dtparam=spi=on
  set_boot 'dtparam=i2c_arm=.*' dtparam=i2c_arm=on
fi
# The screen: pygame draws on KMSDRM, which needs the vc4 KMS driver (dtoverlay=vc4-kms-v3d).
# Then the panel [screen] panel names:
# - touch-display-2-7, touch-display-2-5 (Raspberry Pi Touch Display 2): its overlay,
#   vc4-kms-dsi-ili9881-7inch or -5inch, loads the ILI9881 panel's DSI driver, the Goodix
#   touch controller and the backlight behind the display's own microcontroller (I2C 0x45). It
#   takes the connector the overlay expects (DISP 1 on a Pi 5; the maker adds ",dsi0" for DISP 0,
#   which is kept, as are the line's other parameters but those that turn the picture or the
#   touch coordinates: rotation=, swapxy, invx, invy). display_auto_detect=0 stops the firmware
#   loading an overlay of its own for the same panel, as Raspberry Pi's documentation says to do
#   when the overlay is named. No rotation= parameter: it only sets the panel's orientation
#   property, which desktops and the console honour but SDL2's KMSDRM (pygame's) does not,
#   and it does not turn the touch controller's coordinates; the table turns its picture and
#   the taps itself by [screen] panel_rotation, so the panel stays in its native 720x1280 mode.
# - touch-display-1 (the first Touch Display), hdmi: display_auto_detect=1 finds the first
#   Touch Display (the firmware loads vc4-kms-dsi-7inch); an HDMI monitor needs nothing more. A
#   Touch Display 2 overlay left from an earlier panel is taken out.
# Raspberry Pi OS's config.txt has vc4-kms-v3d and display_auto_detect=1; one removed is put back.
if [ "$screen" = True ]; then
  kms=$(grep -Ex -m 1 -- 'dtoverlay=vc4-kms-v3d(,.*)?' "$boot_config" 2>/dev/null || true)
  set_boot 'dtoverlay=vc4-kms-v3d(,.*)?' "${kms:-dtoverlay=vc4-kms-v3d}"  # with its parameters (cma-...), if any
  touch_display_2='dtoverlay=vc4-kms-dsi-ili9881-[57]inch(,.*)?'
  case "$panel" in
    touch-display-2-7|touch-display-2-5)
      overlay=vc4-kms-dsi-ili9881-${panel#touch-display-2-}inch
      set_boot 'display_auto_detect=.*' display_auto_detect=0
      line=$(grep -Ex -m 1 -- "$touch_display_2" "$boot_config" 2>/dev/null || true)
      IFS=, read -ra given <<< "${line#dtoverlay=vc4-kms-dsi-ili9881-?inch}"
      for param in "${given[@]}"; do  # the table turns the picture and the taps: nothing else may
        case "$param" in ""|rotation=*|swapxy|invx|invy) ;; *) overlay+=",$param" ;; esac
      done
      set_boot "$touch_display_2" "dtoverlay=$overlay" ;;
    touch-display-1|hdmi)
      set_boot 'display_auto_detect=.*' display_auto_detect=1
      set_boot "$touch_display_2" "" ;;
    *) say "WARNING: [screen] panel = \"$panel\" is none the installer knows: the display's lines in config.txt are left as they are" ;;
  esac
fi
# The sound: the MAX98357A amplifier on the Pi's I2S pins (hardware/README.md, "Sound"), when
# hardware/pinout.toml's [amp] says it is fitted: its overlay, and the Pi's own analogue audio
# off, so the amplifier is the sound card SDL plays on. A line the maker wrote for it stays
# (hifiberry-dac drives the same I2S, or max98357a with parameters of its own).
amp=$("$python" -c 'import sys, tomllib
with open(sys.argv[1], "rb") as file:
    print(tomllib.load(file).get("amp", {}).get("fitted", False))' "$src/hardware/pinout.toml" 2>/dev/null || echo False)
if [ "$amp" = True ]; then
  say "sound: the MAX98357A amplifier on I2S"
  i2s='dtoverlay=(max98357a|hifiberry-dac)(,.*)?'
  line=$(grep -Ex -m 1 -- "$i2s" "$boot_config" 2>/dev/null || true)
  set_boot "$i2s" "${line:-dtoverlay=max98357a}"
  set_boot 'dtparam=audio=.*' dtparam=audio=off
fi
case "$model" in
  *"Raspberry Pi 3"*) set_boot core_freq=250 core_freq=250 ;;
  *"Raspberry Pi 4"*|*"Raspberry Pi 400"*) set_boot core_freq=500 core_freq=500; set_boot core_freq_min=500 core_freq_min=500 ;;
esac

# 3. The service's user: no login, no home of its own but the journal's directory, and only
#    the device groups. A group the system lacks is made empty, so the unit can still start.
begin "user $user in ${groups[*]}"
getent group "$user" >/dev/null || { say "group $user"; run "see the log" groupadd --system "$user"; }
if ! getent passwd "$user" >/dev/null; then
  say "user $user"
  run "see the log" useradd --system --gid "$user" --home-dir /var/lib/pi-table --no-create-home \
    --shell /usr/sbin/nologin --comment "pi-table game table" "$user"
fi
for group in "${groups[@]}"; do
  getent group "$group" >/dev/null || { say "group $group was missing: made"; run "see the log" groupadd --system "$group"; }
done
run "see the log" usermod --append --groups "$(IFS=,; echo "${groups[*]}")" "$user"

# 4. The program. First the root helper, the only code root runs for the table: this checkout's
#    pi_table package copied to /opt/pi-table/lib and its launcher, /opt/pi-table/helper, which
#    runs it with the system's Python (an update never changes them: only this installer does).
#    Then a release of this checkout, /opt/pi-table/releases/<version>-<id>, with its own virtual
#    environment that sees Debian's pygame, gpiozero and spidev (so no PyPI copy of them: pi-table's
#    gpio and screen extras are for other machines): the service's user builds the wheels of what
#    git tracks here and of the dependencies at the versions requirements.lock pins, and installs
#    them by their hashes; /opt/pi-table/current is then switched to it in one step (the one before
#    it kept as previous), as every update from the staff page does (pi_table/release,
#    docs/cafe/updates.md): a first install is an update with nothing to go back to.
#    /opt/pi-table/venv leads to the current release's environment.
begin "pi-table into ${venv#"$root"}"
extras=""
[ "$backend" = ws281x ] && extras=leds-pi4
mkdir -p "$prefix"
rm -rf "$prefix/lib.new"
mkdir -p "$prefix/lib.new"
(cd "$src" && tar --exclude=__pycache__ -cf - pi_table) | tar -C "$prefix/lib.new" --no-same-owner -xf -
chmod -R u=rwX,go=rX "$prefix/lib.new"
rm -rf "$prefix/lib"
mv "$prefix/lib.new" "$prefix/lib"
install -m 0755 "$src/systemd/pi-table-helper" "$prefix/helper"
install -m 0644 "$src/README.md" "$prefix/README.md"
# The releases' keyring, root's alone (never /etc/pi-table, which the service may write): the
# project's keys from release-keys/, and whatever the owner adds (docs/cafe/updates.md).
keyring=$root/etc/pi-table-keys
mkdir -p "$keyring"
chmod 0755 "$keyring"
for key in "$src"/release-keys/*.pub; do
  [ -e "$key" ] || continue
  name=$(basename "$key" .pub)
  if ! "$python" -I "$prefix/helper" --keyring "$keyring" keys list | grep -q "^$name "; then
    run "check release-keys/$name.pub" "$python" -I "$prefix/helper" --keyring "$keyring" keys add "$key" --name "$name"
  fi
done
# Staged (PI_TABLE_ROOT, the tests): that root has no user pi-table, so the build runs as
# whoever runs this; on a machine it always runs as the service's user.
build_user=$user
[ -n "$root" ] && build_user=""
from=()
[ -z "$bundle" ] || from=(--bundle "$bundle")
run "pip's messages in the log say which package failed (no network? a failed rpi-ws281x build? a bundle without it?)" \
  env PYTHONDONTWRITEBYTECODE=1 "$python" -I "$prefix/helper" --keyring "$keyring" --user "$build_user" install --source "$src" --extras "$extras" "${from[@]}"
say "$(grep -o 'installed release .*' "$log" | tail -n 1)"
mkdir -p "$root/usr/local/bin"
ln -sfn /opt/pi-table/venv/bin/pi-table "$root/usr/local/bin/pi-table"

# 5. The configuration: the defaults for a new table; a café's own file is checked, not touched.
#    /etc/pi-table and the file are the service's (the staff page edits the configuration, and
#    the unit lets it write there and nowhere else in /etc); root edits it as before. The file
#    is 0640, its group's too: the staff in the table's group read the socket's path in it, and
#    no other local user reads a broker's password there. Every rewrite keeps its mode
#    (pi_table/config/trial.py), the last good copy beside it (.good) too; an older install's
#    0644 is mended here.
mkdir -p "$(dirname "$config")"
if [ -e "$config" ]; then
  say "keeping ${config#"$root"}"
  "$venv/bin/pi-table" check-config "$config" >/dev/null \
    || say "WARNING: ${config#"$root"} has the problems above: the service will not start until they are mended"
else
  say "writing ${config#"$root"} from the defaults"
  (umask 0027 && "$venv/bin/pi-table" check-config --defaults > "$config.new")
  [ "$backend" = spi ] && sed -i 's/^backend = "ws281x"/backend = "spi"/' "$config.new"
  mv "$config.new" "$config"
fi
run "see the log" chown "$user:$user" "$(dirname "$config")" "$config"
for kept in "$config" "$config.good"; do
  [ ! -e "$kept" ] || chmod 0640 "$kept"
done
chmod 0755 "$(dirname "$config")"  # the staff in the table's group reach the file in it

# 6. The unit: enabled for boot, restarted so an upgrade takes effect now. An older version's
#    state directory let the service's group in; systemd only warns about a directory that
#    exists with another mode than the unit's, so it is made 0700 here (the journal holds the key).
state=$root/var/lib/pi-table
if [ -d "$state" ] && [ "$(stat -c %a "$state")" != 700 ]; then
  say "$state made 0700: the staff reach the table through its socket"
  chmod 0700 "$state"
fi
begin "pi-table.service"
mkdir -p "$unit_dir"
# The root helper's units: the staff page's update, reboot and power off (pi-table-helper.service),
# and a table's first boot from the SD image (docs/dev/first-boot.md), which the image's builder
# enables (PI_TABLE_FIRST_BOOT=1): its secrets made on the device, its set-up from a phone.
for unit in pi-table.service pi-table-helper.service pi-table-helper.path pi-table-first-boot.service \
            pi-table-security.service pi-table-stick.service pi-table-stick-restore@.service; do
  install -m 0644 "$src/systemd/$unit" "$unit_dir/$unit"
done
# Debian's security updates are applied when the table is idle, on the owner's schedule
# (pi-table-security.service): Debian's own timer, which would apply them at its hour whatever the
# table is doing, is told to leave them to it (this file sorts after unattended-upgrades' own).
mkdir -p "$root/etc/apt/apt.conf.d"
printf '%s\n' "// pi-table (systemd/install.sh): the table applies the security updates when it is idle" \
  'APT::Periodic::Unattended-Upgrade "0";' > "$root/etc/apt/apt.conf.d/52pi-table"
# systemd reloads its units only where it runs: not in the SD image's root while it is built,
# where the units are enabled for the image's first boot.
if [ -n "$root" ] || [ -d /run/systemd/system ]; then
  run "see the log" systemctl daemon-reload
fi
run "see the log" systemctl enable pi-table.service pi-table-helper.path
if [ "${PI_TABLE_FIRST_BOOT:-0}" = 1 ]; then
  run "see the log" systemctl enable pi-table-first-boot.service
fi
if [ "${PI_TABLE_NO_START:-0}" = 1 ]; then
  say "enabled; not started (PI_TABLE_NO_START=1)"
else
  run "see the log" systemctl start pi-table-helper.path
  run "'journalctl -u pi-table' says why it did not start" systemctl restart pi-table.service
  say "started: 'systemctl status pi-table' and 'pi-table status' tell how it is"
fi

# 7. The owner's passphrase (docs/cafe/roles.md): updates, backups, restores, power and the fleet's
#    settings ask for it on the staff page. Asked for here, at a terminal, while none is set; said
#    how otherwise. The staff PIN is the staff's, set apart (sudo pi-table set-staff-pin).
journal=$("$python" -c 'import sys, tomllib
from pathlib import Path
path = Path(sys.argv[1])
with open(path, "rb") as file:
    journal = Path(tomllib.load(file).get("paths", {}).get("journal_dir", "/var/lib/pi-table/journal"))
print(journal if journal.is_absolute() else path.parent / journal)' "$config" 2>/dev/null || echo /var/lib/pi-table/journal)
if [ -e "$root${journal#"$root"}/owner.pass" ]; then
  :
elif [ -z "$root" ] && [ -t 0 ]; then
  say "the owner's passphrase (10 characters or more), which the staff page asks for updates, backups, restores, power and the fleet's settings:"
  status=2
  while [ "$status" = 2 ]; do  # 2: too short, or the two differ: asked again
    status=0
    "$venv/bin/pi-table" set-owner-passphrase --config "$config" || status=$?
  done
  [ "$status" = 0 ] || say "WARNING: the owner's passphrase was not set (exit $status): sudo pi-table set-owner-passphrase"
else
  say "note: no owner's passphrase is set yet: updates, backups, restores and power stay locked on the staff page until the owner runs: sudo pi-table set-owner-passphrase"
fi
if [ ${#reboot_changes[@]} -gt 0 ]; then
  say "changed for the next boot (reboot to use them): $(IFS=';'; echo "${reboot_changes[*]}" | sed 's/;/; /g')"
fi
