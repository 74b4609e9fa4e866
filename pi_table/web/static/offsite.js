// The staff page's backups off the SD card, the owner's: the network place the nightly backup is
// copied to (its password never comes back: only that one is set), how its last copy went, and the
// USB stick's last backup. A section's script (web/sections/offsite.py): the page loads it after staff.js.
import { $, api, el, formField, locked, ownersAction, say, section, showOnce, t, unlocked, when, worded } from "./staff.js";

const PLACE = "sftp://USER@HOST:22/FOLDER";  // the field's example, in the page's language too

function offsiteSection() {
  return el("section", { id: "offsite-section" },
    worded("h2", "Copies off the SD card"),
    el("p", { id: "backup-key-line", class: "note" },
      el("span", { id: "backup-key-state" }), " ",
      worded("button", "Make a backup key", { id: "backup-key-make", class: "quiet" })),
    el("div", { id: "backup-key", hidden: "" },  // a new backup key, shown once (``showOnce``)
      worded("p", "Write this backup key down with the recovery code and keep it away from the table: the backups copied to a USB stick or to the network place are sealed with it from now on, and a new SD card is set up from one of them only with it. It is shown only now; the copies sealed before still need the key before.", { class: "note" }),
      el("p", { id: "backup-key-code", class: "recovery-code" })),
    el("p", { id: "stick-last", class: "note" }),
    ...formField("offsite-place", "A network place (SFTP or WebDAV) the nightly backup is copied to", { type: "text", autocomplete: "off", placeholder: t(PLACE), "data-t-placeholder": PLACE }),
    ...formField("offsite-password", "Its password", { type: "password", autocomplete: "new-password" }),
    el("div", { class: "row" },
      worded("button", "Keep it and copy the newest backup now", { id: "offsite-save", class: "quiet" })),
    el("p", { id: "offsite-last", class: "note" }),
    el("p", { id: "offsite-key", class: "note" }),
    el("div", { class: "row" },
      worded("button", "Accept the new key and copy the newest backup now", { id: "offsite-key-accept", class: "quiet", hidden: true })),
    ...formField("offsite-ca", "The CA that signed the place's certificate, for a WebDAV place with its own (a NAS's)", { type: "file", accept: ".crt,.pem" }),
    el("p", { id: "offsite-ca-set", class: "note" }),
    el("div", { class: "row" },
      worded("button", "Use this CA and copy the newest backup now", { id: "offsite-ca-save", class: "quiet" })));
}

// The SFTP place's host key: the pinned one's fingerprint for the owner to compare, and the other
// one it answered with since (no copy goes there until the owner accepts it).
let offered = null;
function showKey(key) {
  offered = key && key.offered;
  const line = $("offsite-key");
  line.classList.toggle("error", Boolean(offered));
  line.textContent = !key ? ""
    : offered ? t("The place now answers with another SSH key: {fingerprint}. No copy is sent there. Compare it with the one the place's owner gives you; accept it only if it is theirs.", { fingerprint: offered.join(", ") })
    : t("The place's SSH key, pinned at its first copy: {fingerprint}", { fingerprint: key.pinned.join(", ") });
  $("offsite-key-accept").hidden = !offered;
}

const at = (seconds) => when(new Date(seconds * 1000));

// How the place's last copy went, the place shown without its password.
function showOffsite(found) {
  $("offsite-place").value = found.place || "";
  $("offsite-password").value = "";
  $("offsite-password").placeholder = found.password_set ? t("(set: empty keeps it)") : "";
  const last = found.last;
  const line = $("offsite-last");
  line.classList.toggle("error", Boolean(last && !last.ok));
  line.textContent = !last ? (found.place ? t("No copy made yet.") : "")
    : last.ok ? t("Last copy: {backup} at {time}", { backup: last.backup, time: at(last.at) })
    : t("The last copy failed at {time}: {why}", { time: at(last.at), why: last.why || "?" });
  showKey(found.key);
  $("offsite-ca-set").textContent = found.ca ? t("The place's own CA is set.") : "";
  $("backup-key-state").textContent = found.backup_key
    ? t("A backup key seals the backups copied off the table. A new one replaces the one before.")
    : t("No backup key is kept: no backup is copied off the table. Make one, and write it down.");
  $("backup-key-state").classList.toggle("error", !found.backup_key);  // nothing leaves the card without one
}

// The stick's last backup, as the root helper noted it: a stick plugged in the table gets each night's.
function showStick(last) {
  const line = $("stick-last");
  line.classList.toggle("error", Boolean(last && !last.ok));
  line.textContent = !last ? t("No backup on a USB stick yet: one plugged into the table gets each night's backup.")
    : last.ok ? t("Last on a USB stick ({stick}): {backup} at {time}", { stick: last.stick || "?", backup: last.backup, time: at(last.at) })
    : t("The last backup to a USB stick failed at {time}: {why}", { time: at(last.at), why: last.why || "?" });
}

async function loadOffsite() {
  const answer = await api("GET", "/staff/api/offsite");
  if (answer.ok) { showOffsite(answer.data); showStick(answer.data.stick); }
}

function lockedOffsite(why) {
  $("offsite-place").value = "";
  $("offsite-last").textContent = "";
  $("backup-key-state").textContent = "";
  showKey(null);
  $("stick-last").textContent = why;
}

// The place kept and the newest backup copied there at once: how it went, said.
function tried(answer) {
  showOffsite(answer.data);
  showStick(answer.data.stick);
  const failed = Boolean(answer.data.last && !answer.data.last.ok);
  say(failed ? $("offsite-last").textContent : t("Kept."), failed);
}

$("desk").append(offsiteSection());
$("offsite-save").addEventListener("click", () => ownersAction(
  () => api("POST", "/staff/api/offsite", { place: $("offsite-place").value, password: $("offsite-password").value }),
  tried));
$("offsite-key-accept").addEventListener("click", () => ownersAction(
  () => api("POST", "/staff/api/offsite/key", { fingerprint: offered || [] }),
  tried));
$("backup-key-make").addEventListener("click", () => ownersAction(
  () => api("POST", "/staff/api/offsite/backup-key"),
  (answer) => { showOnce("backup-key", answer.data.backup_key); return loadOffsite(); }));
$("offsite-ca-save").addEventListener("click", async () => {
  const ca = $("offsite-ca").files[0];
  if (!ca) { say(t("Choose the CA's file first."), true); return; }
  const pem = await ca.text();
  ownersAction(() => api("POST", "/staff/api/offsite/ca", { ca: pem }), tried);
});
section({ owner: (state) => (unlocked(state) ? loadOffsite() : lockedOffsite(locked(state))) });
