// The staff page's owner: whether a passphrase is set and how long this phone still acts as the
// owner, the passphrase given to unlock the owner's actions (asked for wherever one needs it, and
// the action done again once given) or to lock them again, and the passphrase changed or, forgotten,
// set again with the owner's recovery code or reset with the code on the table's screen (which
// wipes the owner's part first); the notice a reset leaves until the owner acknowledges it, the
// history of the resets (the owner's), and a new recovery code made, shown once. A section's script (web/sections/owner.py): the page loads
// it after staff.js.
import { $, actingOn, api, backAfterRestart, el, formField, label, ownerIs, ownersAction, resume, say, section, setText, showOnce, t, when, worded } from "./staff.js";

function ownerSection() {
  return el("section", { id: "owner-section", "aria-labelledby": "owner-title" },
    worded("h2", "Owner", { id: "owner-title" }),
    el("div", { id: "owner-notice", class: "message error", role: "alert", hidden: "" },
      el("p", { id: "owner-notice-text" }),
      worded("button", "Acknowledge", { id: "owner-notice-ack" })),
    el("p", { id: "owner-line", role: "status" }),
    el("div", { id: "recovery", hidden: "" },  // a new recovery code, shown once (``showOnce``)
      worded("p", "Write this recovery code down and keep it away from the table: it resets the owner's passphrase once, and is shown only now.", { class: "note" }),
      el("p", { id: "recovery-code", class: "recovery-code" })),
    el("form", { id: "owner-form", class: "stack" },
      ...formField("owner-passphrase", "Owner's passphrase", { type: "password", autocomplete: "current-password", required: "" }),
      el("div", { id: "owner-code-field", class: "stack", hidden: "" },  // shown while phones wait in line (``line``)
        label("owner-code", "Code shown on the table's screen"),
        el("input", { id: "owner-code", inputmode: "numeric", autocomplete: "one-time-code", pattern: "[0-9]{6}", maxlength: "6" })),
      worded("button", "Unlock the owner's actions", { type: "submit" })),
    worded("button", "Lock them again", { id: "owner-end", class: "quiet" }),
    el("details", { id: "passphrase-change" },
      worded("summary", "Change the owner's passphrase"),
      el("form", { id: "passphrase-form", class: "stack" },
        ...formField("passphrase-old", "Current passphrase", { type: "password", autocomplete: "current-password", required: "" }),
        ...newPassphrase("passphrase"),
        worded("button", "Change the passphrase", { type: "submit" }))),
    el("p", { id: "recovery-line", class: "note" },
      worded("span", "A recovery code resets the passphrase if you forget it. Each new one replaces the one before."), " ",
      worded("button", "Make a recovery code", { id: "recovery-make", class: "quiet" })),
    el("details", { id: "passphrase-recover" },
      worded("summary", "Forgot the passphrase? Use the recovery code"),
      el("form", { id: "passphrase-recover-form", class: "stack" },
        ...formField("passphrase-recovery", "The recovery code you wrote down at the set-up", { autocomplete: "off", autocapitalize: "characters", spellcheck: "false", required: "" }),
        ...newPassphrase("passphrase-recover"),
        worded("button", "Set the new passphrase", { type: "submit" }))),
    el("details", { id: "owner-resets", hidden: "" },  // the owner's: shown while this phone acts as the owner
      worded("summary", "Resets of the owner's passphrase"),
      el("ul", { id: "owner-resets-list" })),
    el("details", { id: "passphrase-reset" },
      worded("summary", "Forgot the owner's passphrase?"),
      worded("p", "Hold both buttons while the table starts: its screen shows a code for 10 minutes. This wipes everything only the owner set: the fleet's and the broker's passwords, the release keys the owner added, the nightly backups. The table restarts after.", { class: "note" }),
      el("form", { id: "passphrase-reset-form", class: "stack" },
        ...formField("passphrase-code", "Code on the table's screen", { inputmode: "numeric", autocomplete: "one-time-code", required: "" }),
        ...newPassphrase("passphrase-reset"),
        worded("button", "Set the new passphrase", { type: "submit" }))));
}

// A new owner's passphrase, typed twice: the fields of a form whose ids start with ``prefix``.
function newPassphrase(prefix) {
  return [...formField(`${prefix}-new`, "New passphrase (10 characters or more)", { type: "password", autocomplete: "new-password", minlength: "10", required: "" }),
    ...formField(`${prefix}-again`, "New passphrase again", { type: "password", autocomplete: "new-password", minlength: "10", required: "" })];
}

// Send a new owner's passphrase from the form ``prefix``; its fields emptied, the answer beside it,
// and a new recovery code shown once; after the buttons' reset, the page waits for the restart.
async function setPassphrase(prefix, path, body) {
  if ($(`${prefix}-new`).value !== $(`${prefix}-again`).value) return say(t("The two passphrases differ."), true);
  const answer = await api("POST", path, { ...body, [path.endsWith("passphrase") ? "new" : "passphrase"]: $(`${prefix}-new`).value });
  for (const field of $(`${prefix === "passphrase" ? "passphrase-form" : `${prefix}-form`}`).querySelectorAll("input")) field.value = "";
  if (!answer.ok) {
    if (answer.status !== 401) say(answer.data ? answer.data.error : `HTTP ${answer.status}`, true);
    return;
  }
  showOnce("recovery", answer.data.recovery_code);
  if (answer.data.restarting) {
    say(t("The owner's passphrase was reset: the table restarts now, without the owner's secrets."));
    return backAfterRestart();
  }
  drawOwner(answer.data);
  say(t("The owner's passphrase is changed: this phone acts as the owner, every other gives the new one."));
  told();
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
  $("recovery-line").hidden = !state.set;
  $("recovery-line").firstChild.textContent = state.recovery
    ? t("A recovery code resets the passphrase if you forget it. Each new one replaces the one before.")
    : t("No recovery code is kept: make one, and write it down.");
}

// The notice of the last reset of the owner's passphrase: it stands until the owner acknowledges it.
function drawNotice(notice) {
  $("owner-notice").hidden = !notice;
  setText($("owner-notice-text"), notice || "");
}

// Every reset of the owner's passphrase the table keeps: when, how, from where, what was wiped.
function drawResets(resets) {
  const at = (time) => (time ? when(new Date(time * 1000)) : "?");
  $("owner-resets").hidden = !resets || !resets.length;
  $("owner-resets-list").replaceChildren(...(resets || []).map((reset) => el("li", { text: [
    reset.how === "recovery" ? t("{time}: with the recovery code, from {address}", { time: at(reset.at), address: reset.from })
      : t("{time}: with the table's buttons, from {address}; wiped: {wiped}", { time: at(reset.at), address: reset.from, wiped: reset.wiped.join("; ") || "—" }),
    reset.acknowledged ? t("acknowledged {time}", { time: at(reset.acknowledged) }) : t("not acknowledged yet")].join(" · ") })));
}

// Exported: tests/test_a11y.py runs the page's own refreshes on demand; no script imports it.
export async function loadOwner(background = false) {
  const [answer, notice] = await Promise.all([api("GET", "/staff/api/owner", undefined, background),
    api("GET", "/staff/api/owner/notice", undefined, background)]);
  if (answer.ok) drawOwner(answer.data);
  if (notice.ok) drawNotice(notice.data.notice);
  const resets = answer.ok && answer.data.left_s > 0 ? await api("GET", "/staff/api/owner/resets", undefined, background) : null;
  drawResets(resets && resets.ok ? resets.data.resets : null);
}

// The sections that show the owner's parts (the releases, the files) hear of the owner's state.
function told() {
  return ownerState ? ownerIs(ownerState) : undefined;
}

// The page asks for the passphrase where the owner's section is, and does the action again once given.
function askOwner(error, retry) {
  ownerRetry = { control: actingOn(), retry };
  drawOwner({ ...(ownerState || { set: true }), left_s: 0 });
  $("owner-section").scrollIntoView({ block: "center" });
  say(error, true, $("owner-form"));
  $("owner-passphrase").focus({ preventScroll: true });
}

$("desk").append(ownerSection());
$("owner-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const code = $("owner-code-field").hidden ? "" : $("owner-code").value.trim();
  const passphrase = $("owner-passphrase").value;
  const answer = await api("POST", "/staff/api/owner", code ? { passphrase, code } : { passphrase });
  $("owner-passphrase").value = "";
  $("owner-code").value = "";
  if (answer.data && answer.data.line) $("owner-code-field").hidden = false;
  if (!answer.ok) {
    $("owner-passphrase").setAttribute("aria-invalid", "true");
    if (answer.status !== 401) say(answer.data ? answer.data.error : `HTTP ${answer.status}`, true);
    return;
  }
  $("owner-passphrase").removeAttribute("aria-invalid");
  $("owner-code-field").hidden = true;
  drawOwner(answer.data);
  say(t("The owner's actions are unlocked for {minutes} min.", { minutes: Math.ceil(answer.data.left_s / 60) }));
  told();
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
$("passphrase-recover-form").addEventListener("submit", (event) => {
  event.preventDefault();
  setPassphrase("passphrase-recover", "/staff/api/owner/recover", { recovery: $("passphrase-recovery").value });
});
$("recovery-make").addEventListener("click", () => ownersAction(() => api("POST", "/staff/api/owner/recovery"), (answer) => {
  showOnce("recovery", answer.data.recovery_code);
  return loadOwner();
}));
$("owner-notice-ack").addEventListener("click", () => ownersAction(() => api("POST", "/staff/api/owner/notice"), () => {
  drawNotice(null);
  say(t("The notice is acknowledged."));
  return loadOwner();
}));
$("owner-end").addEventListener("click", async () => {
  const answer = await api("POST", "/staff/api/owner", { end: true });
  if (answer.ok) drawOwner(answer.data);
  told();
});
section({ refresh: () => loadOwner().then(told), poll: () => loadOwner(true), askOwner });
