// The staff page's backup and updates, the owner's: a backup downloaded, one restored from the
// phone or from the nightly backups the table keeps (what it would replace said first), the
// running version and the one before, and an update from the repository or a bundle (checked
// first). A section's script (web/sections/care.py): the page loads it after staff.js.
import { $, api, backAfterRestart, csrf, el, formField, lang, locked, number, ownersAction, saveFile, say, section, settingsNotes, t, unlocked, when, worded } from "./staff.js";

function careSection() {
  return el("section", { id: "care-section" },
    worded("h2", "Backup and updates"),
    el("p", { id: "release-line" }),
    el("div", { id: "release-notes" }),
    el("div", { class: "row" },
      worded("button", "Download a backup", { id: "backup-download", class: "quiet" })),
    ...formField("restore-file", "Restore a backup", { type: "file", accept: ".gz,application/gzip" }),
    el("div", { id: "restore-key-row", hidden: "" },  // shown when the copy is sealed with a key the table does not keep
      ...formField("restore-key", "The backup key, written down when the copy was sealed", { autocomplete: "off",
        autocapitalize: "characters", spellcheck: "false", maxlength: "40", placeholder: "XXXX-XXXX-XXXX-XXXX-XXXX" })),
    worded("p", "Or one of the nightly backups the table keeps:", { class: "note" }),
    el("ul", { id: "nightly", "data-redrawn": "" }),
    el("ul", { id: "restore-replaces" }),
    worded("button", "Restore it", { id: "restore", class: "warn", hidden: "" }),
    el("div", { class: "row" },
      worded("button", "Look for an update", { id: "update-look", class: "quiet" })),
    el("ul", { id: "offered", "data-redrawn": "" }),
    ...formField("bundle-file", "Install a release bundle", { type: "file", accept: ".gz,application/gzip" }));
}

let restoring = null;  // the nightly backup checked to be restored, by name; null: the file chosen

// The nightly backups: each its day, size and what it holds, and a button that checks it for a restore.
async function loadNightly() {
  const answer = await api("GET", "/staff/api/backups");
  const kept = answer.ok ? answer.data.nightly : [];
  $("nightly").replaceChildren(...kept.map((each) => {
    const button = el("button", { class: "quiet", "data-nightly": each.name, text: t("Check it to restore") });
    button.addEventListener("click", () => checkRestore(() => api("POST", `/staff/api/restore?nightly=${encodeURIComponent(each.name)}&check`), each.name));
    return el("li", {}, `${when(new Date(each.made * 1000))} · ${number(Math.max(1, Math.round(each.size / 1024)))} kB · ${each.holds} `, button);
  }));
}

// A sealed copy the table's own key does not open (the old table's, on a new card): the answer
// says so, and the owner's backup key is asked in its field.
function askKey(answer) {
  if (!answer.ok && answer.data && answer.data.key) {
    $("restore-key-row").hidden = false;
    $("restore-key").focus();
  }
  return answer;
}

// The key typed, sent beside the file (never in the address).
const keyTyped = () => $("restore-key").value.trim() ? { "X-Backup-Key": $("restore-key").value.trim() } : {};

// What a backup would replace, and the button that restores it (``nightly``: the name of the kept one).
async function checkRestore(call, nightly = null) {
  $("restore").hidden = true;
  $("restore-replaces").replaceChildren();
  await ownersAction(async () => askKey(await call()), (answer) => {
    restoring = nightly;
    $("restore-replaces").replaceChildren(...answer.data.replaces.map((each) => el("li", { text: each })));
    $("restore").hidden = false;
    $("restore").scrollIntoView({ block: "nearest" });  // what it replaces, and the button that restores it
    say(t("Restoring it replaces:"));
  });
}

function lockedReleases(why) {
  // The releases' part while the owner's actions are locked: why, and no release to offer.
  $("release-line").textContent = why;
  $("release-notes").replaceChildren();
  $("offered").replaceChildren();
  $("nightly").replaceChildren();
}

async function loadReleases(repository = false) {
  loadNightly();
  const answer = await api("GET", `/staff/api/update${repository ? "?repository" : ""}`);
  if (!answer.ok) {
    if (answer.data && answer.data.owner) lockedReleases(answer.data.error);  // the owner's section asks
    return;
  }
  const found = answer.data;
  $("release-line").textContent = t("Version {version} runs", { version: found.running.version })
    + (found.previous ? ` · ${t("before it: {version}", { version: found.previous.version })}` : "");
  const notes = [];
  if (found.trial) notes.push(el("p", { class: "message", text: t("A new version is on trial: it is kept once the table is healthy on it.") }));
  if (found.rolled_back) notes.push(el("p", { class: "message error", text: t("An update was rolled back: {why}", { why: found.rolled_back.why || "?" }) }));
  if (found.last && found.last.outcome && found.last.outcome !== "done" && found.last.why) notes.push(el("p", { class: "message error", text: found.last.why }));
  notes.push(...settingsNotes(found.restore));
  $("release-notes").replaceChildren(...notes);
  $("offered").replaceChildren(...found.offered.map((offer) => el("li", {},
    `${offer.version} `, el("button", { class: "warn", text: t("Install {version}", { version: offer.version }),
      "data-offer": JSON.stringify(offer) }))));
  if (repository && !found.offered.length) $("offered").replaceChildren(el("li", { text: t("No newer version.") }));
}

async function update(body, query = "", data = undefined, asked = false) {
  if (!asked && !confirm(t("Install the update? The table restarts on it, and goes back by itself if it is not healthy."))) return;
  await ownersAction(() => data === undefined ? api("POST", "/staff/api/update", body) : upload(`/staff/api/update${query}`, data),
    () => { say(t("The update is installing: the table restarts on it in a few minutes.")); backAfterRestart(); });
}

// An uploaded bundle is checked first, on any table: what installing it would do is said, and
// only a bundle the table would install is offered, with that said in the confirmation.
async function checkBundle(file) {
  const query = `?bundle=${encodeURIComponent(file.name)}`;
  await ownersAction(() => upload(`/staff/api/update${query}&check`, file), (answer) => {
    say(answer.data.would, !answer.data.installs);
    if (answer.data.installs && confirm(`${answer.data.would}\n\n${t("Install it?")}`)) update(undefined, query, file, true);
  });
}

// A file from the phone as a request's body, with the page's token (api() sends JSON) and ``more`` headers.
async function upload(path, file, more = {}) {
  const response = await fetch(path, { method: "POST", body: file,
    headers: { "X-Staff-Token": csrf || "", "X-Staff-Lang": lang, "Content-Type": "application/gzip", ...more } });
  let data = null;
  try { data = await response.json(); } catch { data = null; }
  return { status: response.status, ok: response.ok, data };
}

$("desk").append(careSection());
$("backup-download").addEventListener("click", () => ownersAction(() => api("GET", "/staff/api/backup"),
  (answer) => saveFile(answer, "pi-table.tar.gz")));  // named by the table: pi-table-TABLE-DAY.tar.gz
$("restore-file").addEventListener("change", async () => {
  const file = $("restore-file").files[0];
  $("restore").hidden = true;
  $("restore-replaces").replaceChildren();
  $("restore-key").value = "";
  $("restore-key-row").hidden = true;
  if (file) await checkRestore(() => upload("/staff/api/restore?check", file));
});
$("restore-key").addEventListener("change", () => {
  const file = $("restore-file").files[0];
  if (file) checkRestore(() => upload("/staff/api/restore?check", file, keyTyped()));
});
$("restore").addEventListener("click", async () => {
  if (!confirm(t("Restore this backup? The table restarts on it, and goes back by itself if it is not healthy."))) return;
  const nightly = restoring;
  await ownersAction(async () => askKey(nightly ? await api("POST", `/staff/api/restore?nightly=${encodeURIComponent(nightly)}`)
    : await upload("/staff/api/restore", $("restore-file").files[0], keyTyped())),
    (answer) => { say(answer.data.said); backAfterRestart(); });
});
$("update-look").addEventListener("click", () => loadReleases(true));
$("offered").addEventListener("click", (event) => {
  const offer = event.target.dataset && event.target.dataset.offer;
  if (offer) { const { from, bundle } = JSON.parse(offer); update(from === "bundle" ? { from, bundle } : { from }); }
});
$("bundle-file").addEventListener("change", () => {
  const file = $("bundle-file").files[0];
  if (file) checkBundle(file);
});
section({ owner: (state) => (unlocked(state) ? loadReleases() : lockedReleases(locked(state))) });
