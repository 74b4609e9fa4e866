#!/bin/sh
# What a table flashed from the SD image finishes at each boot, before the table starts
# (pi-table-image-boot.service; systemd/image/setup.sh installs it as /usr/local/sbin/pi-table-image-boot):
# - the root partition and its ext4 grown to the end of the card (the image is only as big as
#   what it holds): sfdisk writes the longer partition, partx tells the kernel, resize2fs grows
#   the mounted file system; nothing when they reach the end already;
# - on a Pi 5, the LED strip on spidev (rpi-ws281x drives the Pi 3's and 4's, not the 5's), as
#   systemd/install.sh chooses on the Pi it runs on, while the configuration has the image's
#   ws281x still (an owner's choice stays).
set -eu
umask 077  # the configuration's copy below is no one's but root's while it exists (48.13)
root=$(findmnt --noheadings --output SOURCE /)
part=$(basename "$root")
disk=$(basename "$(readlink -f "/sys/class/block/$part/..")")
number=$(cat "/sys/class/block/$part/partition")
end=$(($(cat "/sys/class/block/$part/start") + $(cat "/sys/class/block/$part/size")))
total=$(cat "/sys/class/block/$disk/size")
if [ $((total - end)) -gt 2048 ]; then  # sectors: more than a MiB beyond the root
  echo "growing $root to the end of /dev/$disk ($(((total - end) / 2048)) MiB more)"
  echo ", +" | sfdisk --quiet --no-reread --no-tell-kernel -N "$number" "/dev/$disk"
  partx --update --nr "$number" "/dev/$disk"
  resize2fs "$root"
fi
model=$(tr -d '\0' < /proc/device-tree/model 2>/dev/null || true)
config=/etc/pi-table/config.toml
case "$model" in
  *"Raspberry Pi 5"*)
    if grep -qx 'backend = "ws281x"' "$config"; then
      sed 's/^backend = "ws281x"$/backend = "spi"/' "$config" > "$config.new"
      cat "$config.new" > "$config"  # the file's own owner (the service's) and mode kept
      rm "$config.new"
      echo "a Pi 5: the LED strip on spidev ([leds] backend = \"spi\" in $config)"
    fi ;;
esac
