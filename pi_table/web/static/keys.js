// The staff page's release keys: the keys this table installs updates from, each with its
// fingerprint; the owner adds one (its public line pasted, or read from its .pub file here) or
// revokes one, and the root helper changes the keyring. Its result shows beside its button.
// A section's script (web/sections/keys.py): the page loads it after staff.js.
import { $, api, csrf, el, formField, ownersAction, resultLine, t, worded } from "./staff.js";

function keysSection() {
  return el("section", { id: "keys-section", "aria-labelledby": "keys-title" },
    worded("h2", "Release keys", { id: "keys-title" }),
    el("p", { id: "keys-line" }),
    el("ul", { id: "keys-list", class: "keys" }),
    el("p", { id: "keys-last", class: "note", hidden: "" }),
    el("details", { id: "keys-add" },
      worded("summary", "Add a key"),
      el("form", { id: "keys-form", class: "stack" },
        ...formField("keys-name", "Its name (the person or the maker)", { maxlength: "64", autocomplete: "off", required: "" }),
        ...formField("keys-key", "Public key (the line of the .pub file, ssh-ed25519 AAAA...)", { rows: "3", spellcheck: "false", autocomplete: "off", required: "" }, "textarea"),
        ...formField("keys-file", "Or choose its .pub file", { type: "file", accept: ".pub,text/plain" }),
        worded("button", "Add this key", { type: "submit" }))),
    el("p", { id: "keys-result", class: "message", role: "status", hidden: "" }));
}

const keysResult = resultLine("keys-result");

function drawKeys(data) {
  $("keys-line").textContent = data.problem || (data.keys.some((key) => !key.revoked)
    ? t("This table installs only updates signed with one of these keys.")
    : data.keys.length ? t("No key may sign an update: each one listed is revoked, and this table installs no update until a key is added.")
      : t("No key yet: this table installs no update until one is added."));
  $("keys-list").replaceChildren(...data.keys.map((key) => {
    const item = el("li", {}, el("strong", { text: key.name || "-" }), " ", el("code", { text: key.fingerprint }));
    if (key.revoked) item.append(" ", el("span", { class: "note", text: t("revoked") }));
    else {
      const revoke = el("button", { class: "warn", "data-key": key.name, text: t("Revoke") });
      revoke.addEventListener("click", () => {
        if (confirm(t("Revoke the key {name}? No update signed with it is installed again, even if it is added back.", { name: key.name }))) {
          changeKeys({ act: "revoke", name: key.name });
        }
      });
      item.append(" ", revoke);
    }
    return item;
  }));
  const last = data.last;
  $("keys-last").hidden = !last;
  if (last) {
    $("keys-last").textContent = last.outcome === "done"
      ? t(last.act === "keys-add" ? "Key {name} added: {fingerprint}." : "Key {name} revoked: {fingerprint}.", last)
      : t("The key {name} could not be changed: {why}", { name: last.name, why: last.why || "?" });
    $("keys-last").classList.toggle("error", last.outcome !== "done");
  }
}

async function loadKeys(background = false) {
  const answer = await api("GET", "/staff/api/keys", undefined, background);
  if (answer.ok) drawKeys(answer.data);
}

function changeKeys(body) {
  return ownersAction(() => api("POST", "/staff/api/keys", body), () => {
    keysResult(t("Asked: the table changes its keyring in a moment."));
    if (body.act === "add") { $("keys-form").reset(); }
    setTimeout(() => loadKeys(true), 2000);
  }, keysResult);
}

function wireKeys() {
  $("desk").append(keysSection());
  $("keys-file").addEventListener("change", async () => {
    const file = $("keys-file").files[0];
    if (file) $("keys-key").value = (await file.text()).slice(0, 400).trim();  // a .pub file is one short line
  });
  $("keys-form").addEventListener("submit", (event) => {
    event.preventDefault();
    changeKeys({ act: "add", name: $("keys-name").value.trim(), key: $("keys-key").value.trim() });
  });
  setInterval(() => { if (csrf && !$("desk").hidden) loadKeys(true); }, 15000);
  new MutationObserver(() => { if (csrf && !$("desk").hidden) loadKeys(true); })
    .observe($("desk"), { attributes: true, attributeFilter: ["hidden"] });  // read once logged in, never before
}

wireKeys();
