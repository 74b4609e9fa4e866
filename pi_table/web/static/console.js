// The owner's console on the staff page (a module of staff.js's, whose api(), t() and el() it uses):
// the headline with the readings under it, the log by level and search, the PIN, power, and the
// owner's passphrase that the owner's actions ask for (updates, restores, power, some settings).
import { $, actingOn, api, backAfterRestart, csrf, download, el, grid, inPlace, lang, redraw, refresh, resume, saveFile, say,
  setText, settingsNotes, show, signedIn, t } from "./staff.js";

const LOG_LEVELS = [["info", "everything"], ["warning", "warnings and errors"], ["error", "errors only"]];

function consoleSections() {
  const health = el("section", { id: "health", "aria-labelledby": "health-title" },
    el("h2", { id: "health-title", "data-t": "Health", text: t("Health") }),
    el("p", { id: "headline", class: "headline", role: "status" }),
    el("p", { id: "headline-advice", class: "advice" }),
    el("ul", { id: "attention", class: "attention" }),
    el("dl", { id: "readings", class: "readings" }),
    el("figure", { id: "address", class: "address" }));
  const logLevel = el("select", { id: "log-level", "aria-label": t("Show"), "data-t-label": "Show" },
    ...LOG_LEVELS.map(([value, label]) => el("option", { value, "data-t": label, text: t(label) })));
  const log = el("section", { id: "log-section" },
    el("h2", { "data-t": "Log", text: t("Log") }),
    el("div", { class: "row" }, logLevel,
      el("input", { id: "log-search", type: "search", "aria-label": t("Search the log"), "data-t-label": "Search the log",
                    placeholder: t("Search the log"), "data-t-placeholder": "Search the log" }),
      el("button", { id: "log-refresh", class: "quiet", "data-t": "Refresh", text: t("Refresh") }),
      el("button", { id: "log-download", class: "quiet", "data-t": "Download", text: t("Download") })),
    el("div", { class: "row span" },
      el("label", { for: "log-since", "data-t": "From", text: t("From") }),
      el("input", { id: "log-since", type: "datetime-local" }),
      el("label", { for: "log-until", "data-t": "To", text: t("To") }),
      el("input", { id: "log-until", type: "datetime-local" })),
    el("p", { id: "log-note", class: "note", hidden: "" }),
    el("pre", { id: "log", class: "log", tabindex: "0" }));
  const pin = el("section", { id: "pin-section" },
    el("h2", { "data-t": "Staff PIN", text: t("Staff PIN") }),
    el("form", { id: "pin-form", class: "stack" },
      el("label", { for: "pin-old", "data-t": "Current PIN", text: t("Current PIN") }),
      el("input", { id: "pin-old", type: "password", autocomplete: "current-password", required: "" }),
      el("label", { for: "pin-new", "data-t": "New PIN (6 characters or more)", text: t("New PIN (6 characters or more)") }),
      el("input", { id: "pin-new", type: "password", autocomplete: "new-password", minlength: "6", required: "" }),
      el("label", { for: "pin-again", "data-t": "New PIN again", text: t("New PIN again") }),
      el("input", { id: "pin-again", type: "password", autocomplete: "new-password", minlength: "6", required: "" }),
      el("button", { type: "submit", "data-t": "Change the PIN", text: t("Change the PIN") })));
  const power = el("section", { id: "power-section" },
    el("h2", { "data-t": "Power", text: t("Power") }),
    el("div", { class: "row" },
      el("button", { id: "reboot", class: "warn", "data-t": "Restart the computer", text: t("Restart the computer") }),
      el("button", { id: "poweroff", class: "warn", "data-t": "Shut down", text: t("Shut down") })));
  const care = el("section", { id: "care-section" },
    el("h2", { "data-t": "Backup and updates", text: t("Backup and updates") }),
    el("p", { id: "release-line" }),
    el("div", { id: "release-notes" }),
    el("div", { class: "row" },
      el("button", { id: "backup-download", class: "quiet", "data-t": "Download a backup", text: t("Download a backup") })),
    el("label", { for: "restore-file", "data-t": "Restore a backup", text: t("Restore a backup") }),
    el("input", { id: "restore-file", type: "file", accept: ".gz,application/gzip" }),
    el("p", { class: "note", "data-t": "Or one of the nightly backups the table keeps:", text: t("Or one of the nightly backups the table keeps:") }),
    el("ul", { id: "nightly", "data-redrawn": "" }),
    el("ul", { id: "restore-replaces" }),
    el("button", { id: "restore", class: "warn", hidden: "", "data-t": "Restore it", text: t("Restore it") }),
    el("div", { class: "row" },
      el("button", { id: "update-look", class: "quiet", "data-t": "Look for an update", text: t("Look for an update") })),
    el("ul", { id: "offered", "data-redrawn": "" }),
    el("label", { for: "bundle-file", "data-t": "Install a release bundle", text: t("Install a release bundle") }),
    el("input", { id: "bundle-file", type: "file", accept: ".gz,application/gzip" }));
  const owner = el("section", { id: "owner-section", "aria-labelledby": "owner-title" },
    el("h2", { id: "owner-title", "data-t": "Owner", text: t("Owner") }),
    el("p", { id: "owner-line", role: "status" }),
    el("form", { id: "owner-form", class: "stack" },
      el("label", { for: "owner-passphrase", "data-t": "Owner's passphrase", text: t("Owner's passphrase") }),
      el("input", { id: "owner-passphrase", type: "password", autocomplete: "current-password", required: "" }),
      el("button", { type: "submit", "data-t": "Unlock the owner's actions", text: t("Unlock the owner's actions") })),
    el("button", { id: "owner-end", class: "quiet", "data-t": "Lock them again", text: t("Lock them again") }),
    el("details", { id: "passphrase-change" },
      el("summary", { "data-t": "Change the owner's passphrase", text: t("Change the owner's passphrase") }),
      el("form", { id: "passphrase-form", class: "stack" },
        el("label", { for: "passphrase-old", "data-t": "Current passphrase", text: t("Current passphrase") }),
        el("input", { id: "passphrase-old", type: "password", autocomplete: "current-password", required: "" }),
        ...newPassphrase("passphrase"),
        el("button", { type: "submit", "data-t": "Change the passphrase", text: t("Change the passphrase") }))),
    el("details", { id: "passphrase-reset" },
      el("summary", { "data-t": "Forgot the owner's passphrase?", text: t("Forgot the owner's passphrase?") }),
      el("p", { class: "note", "data-t": "Hold both buttons while the table starts: its screen shows a code for 10 minutes.",
        text: t("Hold both buttons while the table starts: its screen shows a code for 10 minutes.") }),
      el("form", { id: "passphrase-reset-form", class: "stack" },
        el("label", { for: "passphrase-code", "data-t": "Code on the table's screen", text: t("Code on the table's screen") }),
        el("input", { id: "passphrase-code", inputmode: "numeric", autocomplete: "one-time-code", required: "" }),
        ...newPassphrase("passphrase-reset"),
        el("button", { type: "submit", "data-t": "Set the new passphrase", text: t("Set the new passphrase") }))));
  return { health, log, pin, power, care, owner, files: filesSection() };
}

// -- the owner's files: the HTTPS certificate, the fleet broker, the blocked words (web/files.py) ----

function filesSection() {
  const label = (id, text) => el("label", { for: id, "data-t": text, text: t(text) });
  return el("section", { id: "files-section" },
    el("h2", { "data-t": "HTTPS certificate", text: t("HTTPS certificate") }),
    el("p", { id: "tls-line" }),
    el("div", { class: "stack" },
      label("tls-cert", "Certificate (PEM)"), el("input", { id: "tls-cert", type: "file", accept: ".crt,.pem,.cer" }),
      label("tls-key", "Private key (PEM)"), el("input", { id: "tls-key", type: "file", accept: ".key,.pem" })),
    el("div", { class: "row" },
      el("button", { id: "tls-upload", class: "warn", "data-t": "Use this certificate", text: t("Use this certificate") }),
      el("button", { id: "tls-self", class: "quiet", "data-t": "Make a self-signed certificate",
                     text: t("Make a self-signed certificate") })),
    el("h2", { "data-t": "Fleet broker", text: t("Fleet broker") }),
    el("form", { id: "broker-form", class: "stack" },
      label("broker-address", "Broker address (mqtts://USER@HOST:PORT)"),
      el("input", { id: "broker-address", autocomplete: "off", inputmode: "url" }),
      label("broker-table", "This table's name in the fleet"), el("input", { id: "broker-table", autocomplete: "off" }),
      label("broker-password", "Broker password (empty: keep the one set)"),
      el("input", { id: "broker-password", type: "password", autocomplete: "new-password" }),
      label("broker-ca", "The CA that signed the broker's certificate (empty: the system's, or the one set)"),
      el("input", { id: "broker-ca", type: "file", accept: ".crt,.pem" }),
      el("p", { id: "broker-note", class: "note", "data-t": "A password is set.", text: t("A password is set."), hidden: "" }),
      el("button", { type: "submit", class: "warn", "data-t": "Save the broker", text: t("Save the broker") })),
    el("h2", { "data-t": "Words not allowed in team names (one a line)", text: t("Words not allowed in team names (one a line)") }),
    el("form", { id: "words-form", class: "stack" },
      el("textarea", { id: "blocked-words", rows: "5", "aria-label": t("Words not allowed in team names (one a line)"),
                       "data-t-label": "Words not allowed in team names (one a line)" }),
      el("button", { type: "submit", class: "warn", "data-t": "Save the words", text: t("Save the words") })));
}

export async function loadFiles() {
  const answer = await api("GET", "/staff/api/files", undefined, true);
  if (!answer.ok) {
    if (answer.data && answer.data.owner) $("tls-line").textContent = answer.data.error;  // the owner's to see
    return;
  }
  const files = answer.data;
  $("tls-line").textContent = files.https ? t("This table answers over https with {file}.", { file: files.tls.cert })
    : t("This table answers over http: the staff PIN crosses the Wi-Fi in clear.");
  $("broker-address").value = files.broker.broker;
  $("broker-table").value = files.broker.table_id;
  $("broker-note").hidden = !files.broker.password_set;
  $("blocked-words").value = files.blocked_words.join("\n");
}

// A file the owner gives the table: a trial the table restarts on, and goes back from by itself.
function giveFile(kind, body) {
  return ownersAction(() => api("POST", `/staff/api/files/${kind}`, body),
    (answer) => { say(answer.data.said); backAfterRestart(); });
}

function wireFiles() {
  $("tls-upload").addEventListener("click", async () => {
    const [cert, key] = [$("tls-cert").files[0], $("tls-key").files[0]];
    if (!cert || !key) return say(t("Choose the certificate and its key first."), true);
    giveFile("tls", { cert: await cert.text(), key: await key.text() });
  });
  $("tls-self").addEventListener("click", () => {
    if (confirm(t("Make a self-signed certificate? Phones warn about it once, until it is trusted; the table restarts on it."))) {
      giveFile("tls", { self_signed: true });
    }
  });
  $("broker-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const ca = $("broker-ca").files[0];
    giveFile("broker", { broker: $("broker-address").value, table_id: $("broker-table").value,
                         password: $("broker-password").value, ...(ca ? { ca: await ca.text() } : {}) });
    $("broker-password").value = "";
  });
  $("words-form").addEventListener("submit", (event) => {
    event.preventDefault();
    giveFile("blocked-words", { words: $("blocked-words").value });
  });
}

// -- the owner: updates, restores, power and the fleet's credentials ask for the passphrase -----

// A new owner's passphrase, typed twice: the fields of a form whose ids start with ``prefix``.
function newPassphrase(prefix) {
  return [el("label", { for: `${prefix}-new`, "data-t": "New passphrase (10 characters or more)", text: t("New passphrase (10 characters or more)") }),
    el("input", { id: `${prefix}-new`, type: "password", autocomplete: "new-password", minlength: "10", required: "" }),
    el("label", { for: `${prefix}-again`, "data-t": "New passphrase again", text: t("New passphrase again") }),
    el("input", { id: `${prefix}-again`, type: "password", autocomplete: "new-password", minlength: "10", required: "" })];
}

// Send a new owner's passphrase from the form ``prefix``; its fields emptied, the answer beside it.
async function setPassphrase(prefix, path, body) {
  if ($(`${prefix}-new`).value !== $(`${prefix}-again`).value) return say(t("The two passphrases differ."), true);
  const answer = await api("POST", path, { ...body, [path.endsWith("reset") ? "passphrase" : "new"]: $(`${prefix}-new`).value });
  for (const field of $(`${prefix === "passphrase" ? "passphrase-form" : "passphrase-reset-form"}`).querySelectorAll("input")) field.value = "";
  if (answer.ok) {
    drawOwner(answer.data);
    say(t("The owner's passphrase is changed: this phone acts as the owner, every other gives the new one."));
    loadOwnersParts();
  } else if (answer.status !== 401) say(answer.data ? answer.data.error : `HTTP ${answer.status}`, true);
}

let ownerState = null;  // {set, left_s} as the table said last
let ownerRetry = null;  // the owner's action that asked for the passphrase: done again once it is given

function drawOwner(state) {
  ownerState = state;
  const line = !state.set ? t("No owner's passphrase is set: updates, backups, restores, power and the fleet's settings stay locked. Set one on the table's computer with: sudo pi-table set-owner-passphrase")
    : state.left_s ? t("The owner's actions are unlocked for {minutes} min.", { minutes: Math.ceil(state.left_s / 60) })
      : t("Updates, backups, restores, power and the fleet's settings need the owner's passphrase.");
  setText($("owner-line"), line);  // a status line: written when it changes
  $("owner-form").hidden = !state.set || state.left_s > 0;
  $("owner-end").hidden = !state.left_s;
}

export async function loadOwner(background = false) {
  const answer = await api("GET", "/staff/api/owner", undefined, background);
  if (answer.ok) drawOwner(answer.data);
}

// The owner's parts of the page (the releases, the files): asked of the table only while the
// owner's actions are unlocked; else each says why, in the table's own words, and nothing is
// asked that the table would refuse (a refusal is an error in the browser's console).
export async function loadOwnersParts() {
  if (ownerState && ownerState.set && ownerState.left_s > 0) return Promise.all([loadReleases(), loadFiles()]);
  if (!ownerState) return;
  const why = ownerState.set ? t("this needs the owner's passphrase: give it under Owner, then try again")
    : t("this needs the owner, and no owner's passphrase is set: sudo pi-table set-owner-passphrase");
  lockedReleases(why);
  $("tls-line").textContent = why;
}

// The page asks for the passphrase where the owner's section is, and does the action again once given.
export function askOwner(error, retry) {
  ownerRetry = { control: actingOn(), retry };
  drawOwner({ ...(ownerState || { set: true }), left_s: 0 });
  $("owner-section").scrollIntoView({ block: "center" });
  say(error, true, $("owner-form"));
  $("owner-passphrase").focus({ preventScroll: true });
}

// An action of the owner's: done, or the passphrase asked for and the action done again, or why not.
async function ownersAction(call, done) {
  const answer = await call();
  if (answer.ok) return done(answer);
  if (answer.status === 403 && answer.data && answer.data.owner === "needed") {
    return askOwner(answer.data.error, () => ownersAction(call, done));
  }
  if (answer.status !== 401) say(answer.data ? answer.data.said || answer.data.error : `HTTP ${answer.status}`, true);
}

function wireOwner() {
  $("owner-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const answer = await api("POST", "/staff/api/owner", { passphrase: $("owner-passphrase").value });
    $("owner-passphrase").value = "";
    if (!answer.ok) {
      $("owner-passphrase").setAttribute("aria-invalid", "true");
      if (answer.status !== 401) say(answer.data ? answer.data.error : `HTTP ${answer.status}`, true);
      return;
    }
    $("owner-passphrase").removeAttribute("aria-invalid");
    drawOwner(answer.data);
    say(t("The owner's actions are unlocked for {minutes} min.", { minutes: Math.ceil(answer.data.left_s / 60) }));
    loadOwnersParts();
    const asked = ownerRetry;
    ownerRetry = null;
    if (asked) { resume(asked.control); asked.retry(); }  // its result beside its own control
  });
  $("passphrase-form").addEventListener("submit", (event) => {
    event.preventDefault();
    setPassphrase("passphrase", "/staff/api/owner/passphrase", { old: $("passphrase-old").value });
  });
  $("passphrase-reset-form").addEventListener("submit", (event) => {
    event.preventDefault();
    setPassphrase("passphrase-reset", "/staff/api/owner/reset", { code: $("passphrase-code").value });
  });
  $("owner-end").addEventListener("click", async () => {
    const answer = await api("POST", "/staff/api/owner", { end: true });
    if (answer.ok) drawOwner(answer.data);
    loadOwnersParts();
  });
}

// -- backup, restore and updates ---------------------------------------------------------------

let restoring = null;  // the nightly backup checked to be restored, by name; null: the file chosen

// The nightly backups: each its day, size and what it holds, and a button that checks it for a restore.
async function loadNightly() {
  const answer = await api("GET", "/staff/api/backups");
  const kept = answer.ok ? answer.data.nightly : [];
  $("nightly").replaceChildren(...kept.map((each) => {
    const button = el("button", { class: "quiet", "data-nightly": each.name, text: t("Check it to restore") });
    button.addEventListener("click", () => checkRestore(() => api("POST", `/staff/api/restore?nightly=${encodeURIComponent(each.name)}&check`), each.name));
    return el("li", {}, `${each.made} · ${Math.max(1, Math.round(each.size / 1024))} kB · ${each.holds} `, button);
  }));
}

// What a backup would replace, and the button that restores it (``nightly``: the name of the kept one).
async function checkRestore(call, nightly = null) {
  $("restore").hidden = true;
  $("restore-replaces").replaceChildren();
  await ownersAction(call, (answer) => {
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

export async function loadReleases(repository = false) {
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

// A file from the phone as a request's body, with the page's token (api() sends JSON).
async function upload(path, file) {
  const response = await fetch(path, { method: "POST", body: file,
    headers: { "X-Staff-Token": csrf || "", "X-Staff-Lang": lang, "Content-Type": "application/gzip" } });
  let data = null;
  try { data = await response.json(); } catch { data = null; }
  return { status: response.status, ok: response.ok, data };
}

function wireCare() {
  $("backup-download").addEventListener("click", () => ownersAction(() => api("GET", "/staff/api/backup"),
    (answer) => saveFile(answer, "pi-table.tar.gz")));  // named by the table: pi-table-TABLE-DAY.tar.gz
  $("restore-file").addEventListener("change", async () => {
    const file = $("restore-file").files[0];
    $("restore").hidden = true;
    $("restore-replaces").replaceChildren();
    if (file) await checkRestore(() => upload("/staff/api/restore?check", file));
  });
  $("restore").addEventListener("click", async () => {
    if (!confirm(t("Restore this backup? The table restarts on it, and goes back by itself if it is not healthy."))) return;
    const nightly = restoring;
    await ownersAction(() => nightly ? api("POST", `/staff/api/restore?nightly=${encodeURIComponent(nightly)}`)
      : upload("/staff/api/restore", $("restore-file").files[0]),
      () => { say(t("Restored: the table restarts to try it and resumes its game.")); backAfterRestart(); });
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
}

// -- the self-test and the pads' tuning: the game paused meanwhile, resumed where it was -------

let benchPoll = null;

function benchSection() {
  const button = (id, label, kind = "") => el("button", { id, class: `big ${kind}`.trim(), "data-t": label, text: t(label) });
  return el("section", { id: "bench-section", "aria-labelledby": "bench-title" },
    el("h2", { id: "bench-title", "data-t": "Self-test and pads", text: t("Self-test and pads") }),
    el("p", { class: "advice", "data-t": "The self-test and the tuning pause the game; it resumes where it was when they end.",
      text: t("The self-test and the tuning pause the game; it resumes where it was when they end.") }),
    el("div", { class: "row" }, button("selftest-start", "Start the self-test"), button("tune-start", "Tune the pads"),
      button("bench-stop", "Stop and resume the game", "warn")),
    el("p", { id: "bench-line", role: "status" }),
    el("ul", { id: "bench-checks", class: "checks" }),
    el("ul", { id: "bench-failures", class: "attention" }),
    el("ul", { id: "bench-pads", class: "pads" }),
    button("tune-write", "Keep the suggested thresholds", "warn"));
}

function drawSelftest(state) {
  const test = state.test;
  if (!test) return;
  const stage = { walk: t("The LEDs light one cell after another: watch each one."),
    rest: t("Hands off the table: measuring each pad at rest."),
    checklist: t("Touch each card once, press each button, tap the screen."),
    done: test.passed ? t("Self-test passed.") : t("Self-test failed.") }[test.stage];
  setText($("bench-line"), test.todo.length ? `${stage} ${t("Still to do: {steps}", { steps: test.todo.join(", ") })}` : stage);
  $("bench-line").classList.toggle("bad", test.passed === false);
  $("bench-checks").replaceChildren(...test.checks.map((check) =>
    el("li", { class: check.done ? "done" : "", text: `${check.done ? "✓" : "○"} ${check.what}` })));
  $("bench-failures").replaceChildren(...test.failures.map((failure) => el("li", { text: failure })));
  $("bench-pads").className = "pads grid";
  $("bench-pads").dataset.edge = t("operatives' side");
  if (grid) $("bench-pads").dataset.operatives = grid.operatives;
  $("bench-pads").replaceChildren(...test.pads.map((pad) => inPlace(el("li", { class: pad.touched ? "done" : "",
    "aria-label": t(pad.touched ? "card {cell}: touched" : "card {cell}: not yet", { cell: pad.cell }),
    text: `${pad.cell}${pad.touched ? " ✓" : ""}` }), pad.cell)));
}

function drawTuning(state) {
  if (state.note) { setText($("bench-line"), state.note); return; }
  setText($("bench-line"), state.problem || state.message || "");
  $("bench-line").classList.toggle("bad", Boolean(state.problem));
  $("bench-checks").replaceChildren();
  $("bench-failures").replaceChildren(...state.pads.filter((pad) => !["ok", "untouched"].includes(pad.verdict))
    .map((pad) => el("li", { text: pad.advice })));
  const top = Math.max(16, ...state.pads.map((pad) => Math.max(pad.touch, pad.peak || 0, pad.delta)));
  $("bench-pads").className = "pads bars";
  $("bench-pads").replaceChildren(...state.pads.map((pad) => {
    const line = t("{name}: {delta} (touch {touch}, release {release})", pad)
      + (pad.suggested ? ` · ${t("suggested {touch}/{release}", { touch: pad.suggested[0], release: pad.suggested[1] })}` : "");
    return el("li", {}, el("span", { text: line }),
      el("meter", { min: "0", max: String(top), low: String(pad.release), high: String(pad.touch),
        value: String(Math.max(0, pad.delta)), "aria-label": line }));
  }));
  $("tune-write").hidden = !state.pads.some((pad) => pad.suggested);
}

export async function loadBench(background = true) {
  const [selftest, tuning] = await Promise.all([api("GET", "/staff/api/selftest", undefined, background),
    api("GET", "/staff/api/tune", undefined, background)]);
  if (!selftest.ok || !tuning.ok) return;
  const busy = selftest.data.busy;
  $("bench-stop").hidden = !busy;
  $("selftest-start").disabled = $("tune-start").disabled = busy;
  if (tuning.data.running || (!selftest.data.running && $("bench-pads").classList.contains("bars"))) drawTuning(tuning.data);
  else drawSelftest(selftest.data);
  if (!busy) { clearInterval(benchPoll); benchPoll = null; }
}

async function bench(path, act) {
  const answer = await api("POST", path, { act });
  if (!answer.ok) { if (answer.status !== 401) say(answer.data ? answer.data.error : `HTTP ${answer.status}`, true); return; }
  if (path.endsWith("tune") && act === "start") {
    $("bench-pads").className = "pads bars";
    drawTuning(answer.data);
  }
  await loadBench(false);
  if (act === "start" && answer.data.running && !benchPoll) benchPoll = setInterval(loadBench, 1000);
}

function wireBench() {
  $("tune-write").hidden = true;
  $("bench-stop").hidden = true;
  $("selftest-start").addEventListener("click", () => { $("bench-pads").className = "pads grid"; bench("/staff/api/selftest", "start"); });
  $("tune-start").addEventListener("click", () => bench("/staff/api/tune", "start"));
  $("bench-stop").addEventListener("click", () => bench("/staff/api/selftest", "stop"));
  $("tune-write").addEventListener("click", async () => {
    if (!confirm(t("Keep these thresholds? The table restarts to try them, and goes back by itself if it is not healthy."))) return;
    const answer = await api("POST", "/staff/api/tune", { act: "write" });
    if (answer.ok) { say(t("Thresholds written: the table restarts to try them.")); backAfterRestart(); }
    else if (answer.status !== 401) say(answer.data ? answer.data.error : `HTTP ${answer.status}`, true);
  });
}

function reading(label, value) {
  return [el("dt", { text: label }), el("dd", { text: value })];
}

function drawHealth(health) {
  const line = health.headline;
  const headline = $("headline");
  setText(headline, line.more ? `${line.text} ${t("(+{count} more)", { count: line.more })}` : line.text);  // a status line
  headline.classList.toggle("bad", !line.ok);
  $("headline-advice").textContent = line.advice || "";
  $("attention").replaceChildren(...health.attention.slice(1).map((each) =>
    el("li", {}, el("strong", { text: each.what }), " ", each.advice)));
  const r = health.readings;
  const mb = (value) => value == null ? t("no reading") : `${Math.round(value)} MB`;
  const power = r.power == null ? t("no reading")
    : r.power.under_voltage ? t("under-voltage now") : r.power.under_voltage_since_boot ? t("under-voltage since the start") : t("ok");
  $("readings").replaceChildren(
    ...reading(t("Disk free"), r.disk_free_mb == null ? t("no reading") : `${mb(r.disk_free_mb)} / ${mb(r.disk_total_mb)}`),
    ...reading(t("CPU temperature"), r.cpu_temp_c == null ? t("no reading") : `${r.cpu_temp_c} °C`),
    ...reading(t("Power supply"), power),
    ...reading(t("Memory free"), r.memory_available_mb == null ? t("no reading") : `${mb(r.memory_available_mb)} / ${mb(r.memory_total_mb)}`),
    ...reading(t("Computer up"), r.uptime_s == null ? t("no reading") : duration(r.uptime_s)),
    ...reading(t("Service up"), duration(health.uptime_s)),
    ...reading(t("Version"), health.version));
  redraw($("address"), health.address, () => {  // drawn again only when it changes: its link keeps the focus
    if (!health.address) return [];
    const qr = new DOMParser().parseFromString(health.address.qr_svg, "image/svg+xml").documentElement;
    qr.setAttribute("role", "img");
    qr.setAttribute("aria-label", t("QR code of this page: {address}", { address: health.address.staff }));
    return [qr, el("figcaption", {}, t("This page's address: "), el("a", { href: health.address.staff, text: health.address.staff }))];
  });
}

function duration(seconds) {
  const minutes = Math.floor(seconds / 60), hours = Math.floor(minutes / 60), days = Math.floor(hours / 24);
  if (days) return t("{days} d {hours} h", { days, hours: hours % 24 });
  if (hours) return t("{hours} h {minutes} min", { hours, minutes: minutes % 60 });
  return t("{minutes} min", { minutes });
}

export async function loadHealth(background = false) {
  const answer = await api("GET", "/staff/api/health", undefined, background);
  if (answer.ok) drawHealth(answer.data);
}

// The log's query: its level, its search, and its time range (the journal's, across the service's starts).
function logQuery() {
  const query = new URLSearchParams({ level: $("log-level").value, q: $("log-search").value });
  for (const name of ["since", "until"]) {
    const chosen = $(`log-${name}`).value;  // the phone's local time
    if (chosen) query.set(name, String(Math.floor(new Date(chosen).getTime() / 1000)));
  }
  return query;
}

export async function loadLog() {
  const answer = await api("GET", `/staff/api/log?${logQuery()}`);
  if (!answer.ok) return;
  $("log").textContent = answer.data.lines.join("\n");
  $("log").scrollTop = 1e9;
  $("log-note").textContent = answer.data.note || "";
  $("log-note").hidden = !answer.data.note;
}

// A forgotten PIN: the code the table's screen shows when both buttons are held while it starts.
function recoverForm() {
  return el("details", { id: "recover", class: "recover" },
    el("summary", { "data-t": "Forgot the PIN?", text: t("Forgot the PIN?") }),
    el("p", { "data-t": "Hold END TURN and NEW GAME while the table starts (switch it off and on, or restart the service): the spymaster screen shows a code for 10 minutes.", text: t("Hold END TURN and NEW GAME while the table starts (switch it off and on, or restart the service): the spymaster screen shows a code for 10 minutes.") }),
    el("form", { id: "recover-form", class: "stack" },
      el("label", { for: "recover-code", "data-t": "Code on the table's screen", text: t("Code on the table's screen") }),
      el("input", { id: "recover-code", inputmode: "numeric", autocomplete: "one-time-code", required: "" }),
      el("label", { for: "recover-pin", "data-t": "New PIN (6 characters or more)", text: t("New PIN (6 characters or more)") }),
      el("input", { id: "recover-pin", type: "password", autocomplete: "new-password", minlength: "6", required: "" }),
      el("label", { for: "recover-passphrase", "data-t": "Owner's passphrase", text: t("Owner's passphrase") }),
      el("input", { id: "recover-passphrase", type: "password", autocomplete: "current-password", required: "" }),
      el("button", { type: "submit", "data-t": "Set the new PIN", text: t("Set the new PIN") })));
}

export function wireConsole() {
  $("login").after(recoverForm());
  $("recover-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const answer = await api("POST", "/staff/recover", { code: $("recover-code").value, pin: $("recover-pin").value,
      passphrase: $("recover-passphrase").value });
    $("recover-pin").value = $("recover-passphrase").value = "";
    if (!answer.ok) return say(answer.data ? answer.data.error : `HTTP ${answer.status}`, true);
    signedIn(answer.data.csrf);
    $("recover").open = false;
    say(t("The PIN is changed: every other phone logs in again with the new one."));
    show("desk");
    refresh();
  });
  const desk = $("desk");
  const sections = consoleSections();
  desk.prepend(sections.health);
  desk.append(sections.log, sections.owner, sections.care, sections.files, benchSection(), sections.pin, sections.power);
  wireOwner();
  wireCare();
  wireFiles();
  wireBench();
  $("log-level").addEventListener("change", loadLog);
  let typing = null;
  $("log-search").addEventListener("input", () => { clearTimeout(typing); typing = setTimeout(loadLog, 300); });
  $("log-refresh").addEventListener("click", () => { loadLog(); loadHealth(); });
  for (const id of ["log-since", "log-until"]) $(id).addEventListener("change", loadLog);
  $("log-download").addEventListener("click", () => download(`/staff/api/log.txt?${logQuery()}`, "pi-table-log.txt"));
  $("pin-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    if ($("pin-new").value !== $("pin-again").value) return say(t("the two new PINs differ"), true);
    const answer = await api("POST", "/staff/api/pin", { old: $("pin-old").value, new: $("pin-new").value });
    for (const id of ["pin-old", "pin-new", "pin-again"]) $(id).value = "";
    if (answer.ok) { signedIn(answer.data.csrf); say(t("The PIN is changed: every other phone logs in again with the new one.")); }
    else if (answer.status !== 401) say(answer.data ? answer.data.error : `HTTP ${answer.status}`, true);
  });
  $("reboot").addEventListener("click", () => switchPower("reboot",
    t("Restart the computer? The game resumes once it is back (about a minute)."), t("The computer is restarting…")));
  $("poweroff").addEventListener("click", () => switchPower("poweroff",
    t("Shut the computer down? Someone must switch it on again at the table."), t("The computer is shutting down…")));
}

async function switchPower(act, question, done) {
  if (!confirm(question)) return;
  await ownersAction(() => api("POST", "/staff/api/power", { act }), () => { say(done); if (act === "reboot") backAfterRestart(); });
}

