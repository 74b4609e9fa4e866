// The set-up page of a table nobody has set up yet (pi_table/web/sections/setup.py): what it offers
// (the languages, the time zones, the networks in reach), then the form sent with the code the
// table's screen shows. A refusal names each field that will not do beside it, and focuses the first.
"use strict";

let lang = localStorage.getItem("setup-lang") || document.documentElement.lang;
let words = {};
const catalogues = { en: {} };  // by language: the one the table is set to is fetched before it restarts
const $ = (id) => document.getElementById(id);

function t(text, fields = {}) {
  let said = words[text] || text;
  for (const [name, value] of Object.entries(fields)) said = said.replaceAll(`{${name}}`, value);
  return said;
}

async function wordsOf(chosen) {
  if (!(chosen in catalogues)) catalogues[chosen] = await (await fetch(`/setup/words/${chosen}`)).json();
  return catalogues[chosen];
}

async function loadWords() {
  words = await wordsOf(lang);
  showWords();
}

function showWords() {
  document.documentElement.lang = lang;
  for (const node of document.querySelectorAll("[data-t]")) node.textContent = t(node.dataset.t);
  for (const node of document.querySelectorAll("[data-t-label]")) node.setAttribute("aria-label", t(node.dataset.tLabel));
  document.title = `pi-table: ${t("Set up this table")}`;
  $("lang").value = lang;
}

function option(value, label = value) {
  const node = document.createElement("option");
  node.value = value;
  if (label !== value) node.textContent = label;
  return node;
}

// The network as the table sees it, and the networks in reach for the Wi-Fi's name.
function drawNetwork(about) {
  const now = about.network;
  $("network-line").textContent = now.hotspot ? t("No network: the table opened its own Wi-Fi.")
    : now.connected ? t("On the network {network}.", { network: now.via }) : "";
  $("networks").replaceChildren(...about.networks.map((seen) => option(seen.ssid,
    seen.secure ? `${seen.ssid} (${seen.signal}%)` : `${seen.ssid} ${t("(open network)")}`)));
}

async function load() {
  const answer = await fetch(`/setup/api?lang=${lang}`);
  if (!answer.ok) { window.location = "/staff"; return; }  // set up already: the page is gone
  const about = await answer.json();
  $("zones").replaceChildren(...about.zones.map((zone) => option(zone)));
  if (!$("zone").value) $("zone").value = about.zone || "";
  $("language").value = localStorage.getItem("setup-lang") || about.language;
  drawNetwork(about);
  // The page's certificate, as the table's screen shows it: what the phone's warning named, to compare.
  $("certificate").hidden = !about.fingerprint;
  $("certificate").textContent = about.fingerprint ? `${t("The page's certificate (SHA-256):")} ${about.fingerprint_shown}` : "";
}

function result(text, problems = []) {
  // What came of the set-up, beside the button; each field that will not do is marked, its problem
  // said beside it (all at once), and the first one focused.
  for (const node of document.querySelectorAll("[aria-invalid]")) {
    node.removeAttribute("aria-invalid");
    node.removeAttribute("aria-errormessage");
  }
  for (const node of document.querySelectorAll(".field-error")) node.remove();
  const marked = problems.filter((problem) => $(problem.field));
  for (const problem of marked) {
    const said = document.createElement("p");
    said.id = `${problem.field}-error`;
    said.className = "message error field-error";
    said.setAttribute("aria-live", "polite");  // read with its field (aria-errormessage), as #result is
    said.textContent = problem.error;
    $(problem.field).insertAdjacentElement("afterend", said);
    $(problem.field).setAttribute("aria-invalid", "true");
    $(problem.field).setAttribute("aria-errormessage", said.id);
  }
  const unmarked = problems.filter((problem) => !$(problem.field)).map((problem) => problem.error);
  $("result").textContent = [text, ...unmarked].filter(Boolean).join("\n");
  $("result").classList.toggle("error", problems.length > 0);
  $("result").hidden = !$("result").textContent;
  if (marked.length) $(marked[0].field).focus();
}

// A backup on a USB stick (a table whose SD card died): the table's root helper copies the stick's
// newest backup (or one of its list) into the table; the page shows what restoring it brings, or
// why it will not do, and the set-up then restores it in place of the name, language and PIN.
let copied = null;  // the backup copied from the stick, checked by the table: the set-up restores it

async function lookOnStick(name) {
  $("stick-look").disabled = $("stick-copy").disabled = true;
  drawStick({ looking: true });
  try {
    const answer = await fetch(`/setup/api/stick?lang=${lang}`, { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ code: $("code").value, line: lineCode(), backup: name }) });
    const data = await answer.json();
    if (data.line) $("line-field").hidden = false;  // a flood's line: the screen shows a code that skips it
    if (!data.ok) {
      drawStick({ outcome: "failed", why: data.error });
      if (data.field === "code") result("", [{ field: "code", error: data.error }]);
      return;
    }
    for (let tries = 0; tries < 120; tries++) {  // the helper mounts, lists and copies: seconds
      const found = await (await fetch(`/setup/api/stick?lang=${lang}`, { headers: { "X-Stick-Ticket": data.ticket } })).json();
      if (found.outcome) return drawStick(found);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  } catch {
    drawStick({ outcome: "failed", why: "?" });
  } finally {
    $("stick-look").disabled = $("stick-copy").disabled = false;
  }
}

const kit = import("/staff/static/kit.js");  // the page kit's dates, every page's

async function drawStick(found) {
  copied = found.outcome === "done" ? found.backup : null;
  const made = found.made == null ? "?" : (await kit).when(new Date(found.made * 1000), undefined, lang);
  $("restore").hidden = false;
  $("restore").classList.toggle("error", ["failed", "refused"].includes(found.outcome));
  $("restore").textContent = found.looking ? t("Looking on the stick…") : copied && found.sealed
    ? t("Backup {backup} from the stick {stick} is sealed: type its backup key, written down at the set-up, then set the table up from it.", { backup: copied, stick: found.stick })
    : copied ? t("Backup {backup} from the stick {stick}, made {made}. Restoring it brings:", { backup: copied, stick: found.stick, made })
      : found.why;
  $("key-part").hidden = !(copied && found.sealed);  // its key opens it: asked before anything of it is read
  $("restore-replaces").replaceChildren(...(copied ? found.replaces : []).map((line) => {
    const item = document.createElement("li");
    item.textContent = line;
    return item;
  }));
  $("restore-replaces").hidden = !copied;
  const others = (found.listed || []).filter((name) => name !== found.backup);
  $("stick-choice").replaceChildren(...others.map((name) => option(name)));
  $("stick-others").hidden = !others.length;
  $("use-backup-line").hidden = !copied;
  fromBackup();
}

function fromBackup() {
  // Restoring a backup, the table takes its name, language and staff PIN from it: those fields go.
  const restoring = copied && $("use-backup").checked;
  $("own-settings").hidden = $("pin-part").hidden = Boolean(restoring);
}

// The code past a flood's line, once the page was told phones wait in line (as the staff login's).
function lineCode() {
  return $("line-field").hidden ? "" : $("line").value.trim();
}

async function submit(event) {
  event.preventDefault();
  const ssid = $("ssid").value.trim();
  const restoring = copied && $("use-backup").checked;
  const body = restoring ? {  // the backup brings the name, the language and the staff PIN
    code: $("code").value, line: lineCode(), restore: copied, key: $("backup-key-given").value, zone: $("zone").value,
    passphrase: $("passphrase").value, passphrase_again: $("passphrase-again").value,
    wifi: ssid ? { ssid, password: $("wifi-password").value } : null,
  } : {  // the table checks every field, the two "again" among them, and names each problem
    code: $("code").value, line: lineCode(), name: $("name").value, language: $("language").value, zone: $("zone").value,
    pin: $("pin").value, pin_again: $("pin-again").value,
    passphrase: $("passphrase").value, passphrase_again: $("passphrase-again").value,
    wifi: ssid ? { ssid, password: $("wifi-password").value } : null,
  };
  $("submit").disabled = true;
  result(t("Setting up…"));
  let answer, data = null;
  try {
    await wordsOf(body.language || lang);  // the done page speaks it, and the table is gone once it has answered
    answer = await fetch(`/setup/api?lang=${lang}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    data = await answer.json();
  } catch {
    data = null;
  } finally {
    $("submit").disabled = false;
  }
  if (data && data.line) $("line-field").hidden = false;  // a flood's line: the screen shows a code that skips it
  if (!answer || !answer.ok || !data || !data.ok) {
    const problems = data && data.problems ? data.problems : [{ field: data && data.field ? data.field : "code",
      error: data && data.error ? data.error : `HTTP ${answer ? answer.status : "?"}` }];
    return result(t("Correct the fields marked above."), problems);
  }
  done(data, body.language || lang);
}

function done(data, chosen) {
  lang = chosen;  // the table speaks it from now on: so does this page, from the words fetched before
  localStorage.setItem("setup-lang", lang);
  words = catalogues[lang] || {};
  showWords();
  $("setup").hidden = true;
  $("done").hidden = false;
  $("done-line").textContent = [t("The table is set up and restarts on its settings (about a minute)."), ...data.notes].join("\n");
  $("done-next").textContent = data.joining
    ? t("It now joins {ssid}: connect this phone to {ssid}, then open {address}", { ssid: data.joining, address: data.staff })
    : t("Then open the staff page:");
  $("staff-link").href = data.staff;
  kit.then(({ showOnce }) => {  // each shown this once, as the staff page shows a new one
    showOnce("recovery", data.recovery_code);  // the table keeps its hash alone
    showOnce("backup-key", data.backup_key);  // the copies off the card are sealed with it
  });
  $("heading").focus();
}

document.addEventListener("DOMContentLoaded", async () => {
  $("lang").addEventListener("change", async () => {
    lang = $("lang").value;
    localStorage.setItem("setup-lang", lang);
    $("language").value = lang;
    await loadWords();
    await load();
  });
  $("setup").addEventListener("submit", submit);
  $("stick-look").addEventListener("click", () => lookOnStick("newest"));
  $("stick-copy").addEventListener("click", () => lookOnStick($("stick-choice").value));
  $("use-backup").addEventListener("change", fromBackup);
  await loadWords();
  await load();
  setInterval(async () => {  // the networks in reach, and the table's own Wi-Fi, as they change
    if (!$("setup").hidden) {
      const answer = await fetch(`/setup/api?lang=${lang}`);
      if (answer.ok) drawNetwork(await answer.json());
    }
  }, 10000);
});
