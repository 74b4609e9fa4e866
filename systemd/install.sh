#!/usr/bin/env bash
# Install pi-table as a service on Raspberry Pi OS (Bookworm), from this checkout:
#
#   sudo systemd/install.sh
#
# Installs the system packages, turns on SPI and I2C, creates the user pi-table in the device
# groups, puts pi-table into /opt/pi-table/venv, writes /etc/pi-table/config.toml from the
# defaults when there is none (an existing one is checked, never overwritten), installs and
# enables pi-table.service and (re)starts it. Every step looks before it acts, so running it
# again (after a `git pull`, say) upgrades in place.
#
# PI_TABLE_ROOT stages every file it writes or reads under another root (the tests run it so,
# with the system commands stubbed); PI_TABLE_NO_START=1 enables the unit without starting it.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
root=${PI_TABLE_ROOT:-}
user=pi-table
groups=(gpio spi i2c dialout video input render)
prefix=$root/opt/pi-table
venv=$prefix/venv
config=$root/etc/pi-table/config.toml
unit_dir=$root/etc/systemd/system
python=${PYTHON:-python3}

say() { printf 'install: %s\n' "$*"; }
fail() { printf 'install: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || [ -n "$root" ] || fail "run it as root: sudo $0"
[ -f "$src/pyproject.toml" ] && [ -f "$src/systemd/pi-table.service" ] \
  || fail "$src is not a pi-table checkout (no pyproject.toml or systemd/pi-table.service)"

model=$(tr -d '\0' < "$root/proc/device-tree/model" 2>/dev/null || true)
say "machine: ${model:-not a Raspberry Pi (no /proc/device-tree/model)}"

# 1. System packages. Debian's pygame is built with KMSDRM (the PyPI wheel is not), gpiozero
#    with lgpio drives the buttons on every Pi, spidev the Pi 5's LED strip.
say "system packages"
apt-get update -qq
apt-get install -y -qq python3 python3-venv python3-pip python3-pygame python3-gpiozero \
  python3-lgpio python3-spidev python3-serial

# 2. SPI for the LED strip, I2C for a local MPR121; a fixed core clock keeps the Pi 3's and 4's
#    SPI rate steady for rpi-ws281x (its README); the Pi 5 drives the strip with spidev instead.
if command -v raspi-config >/dev/null; then
  say "SPI and I2C on"
  raspi-config nonint do_spi 0
  raspi-config nonint do_i2c 0
fi
boot_config=$root/boot/firmware/config.txt
[ -f "$boot_config" ] || boot_config=$root/boot/config.txt
case "$model" in
  *"Raspberry Pi 3"*) clocks=(core_freq=250) ;;
  *"Raspberry Pi 4"*|*"Raspberry Pi 400"*) clocks=(core_freq=500 core_freq_min=500) ;;
  *) clocks=() ;;
esac
for line in "${clocks[@]}"; do
  if [ -f "$boot_config" ] && ! grep -qx "$line" "$boot_config"; then
    say "$line in $boot_config (takes effect at the next boot)"
    # under [all]: the file may end inside a section for another model ([pi4], [cm5]...)
    [ "$(grep -x '\[.*\]' "$boot_config" | tail -n 1)" = "[all]" ] || printf '[all]\n' >> "$boot_config"
    printf '%s\n' "$line" >> "$boot_config"
  fi
done

# 3. The service's user: no login, no home of its own but the journal's directory, and only
#    the device groups. A group the system lacks is made empty, so the unit can still start.
getent group "$user" >/dev/null || { say "group $user"; groupadd --system "$user"; }
if ! getent passwd "$user" >/dev/null; then
  say "user $user"
  useradd --system --gid "$user" --home-dir /var/lib/pi-table --no-create-home \
    --shell /usr/sbin/nologin --comment "pi-table game table" "$user"
fi
for group in "${groups[@]}"; do
  getent group "$group" >/dev/null || { say "group $group was missing: made"; groupadd --system "$group"; }
done
usermod --append --groups "$(IFS=,; echo "${groups[*]}")" "$user"

# 4. The program, in a virtual environment that sees Debian's pygame, gpiozero and spidev.
#    rpi-ws281x drives the Pi 3's and 4's strip; it does not support the Pi 5.
say "pi-table into $venv"
[ -x "$venv/bin/python" ] || "$python" -m venv --system-site-packages "$venv"
target=$src
case "$model" in *"Raspberry Pi 5"*) ;; *"Raspberry Pi"*) target="$src[leds-pi4]" ;; esac
"$venv/bin/python" -m pip install -q --disable-pip-version-check --upgrade "$target"
install -m 0644 "$src/README.md" "$prefix/README.md"
mkdir -p "$root/usr/local/bin"
ln -sfn /opt/pi-table/venv/bin/pi-table "$root/usr/local/bin/pi-table"

# 5. The configuration: the defaults for a new table; a café's own file is checked, not touched.
mkdir -p "$(dirname "$config")"
if [ -e "$config" ]; then
  say "keeping $config"
  "$venv/bin/pi-table" check-config "$config" >/dev/null \
    || say "WARNING: $config has the problems above: the service will not start until they are mended"
else
  say "writing $config from the defaults"
  "$venv/bin/pi-table" check-config --defaults > "$config.new"
  case "$model" in
    *"Raspberry Pi 5"*) sed -i 's/^backend = "ws281x"/backend = "spi"/' "$config.new" ;;
  esac
  chmod 0644 "$config.new"
  mv "$config.new" "$config"
fi

# 6. The unit: enabled for boot, restarted so an upgrade takes effect now.
say "pi-table.service"
mkdir -p "$unit_dir"
install -m 0644 "$src/systemd/pi-table.service" "$unit_dir/pi-table.service"
systemctl daemon-reload
systemctl enable pi-table.service
if [ "${PI_TABLE_NO_START:-0}" = 1 ]; then
  say "enabled; not started (PI_TABLE_NO_START=1)"
else
  systemctl restart pi-table.service
  say "started: 'systemctl status pi-table' and 'pi-table status' tell how it is"
fi
