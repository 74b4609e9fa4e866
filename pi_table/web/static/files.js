// The staff page's owner's files: the HTTPS certificate (uploaded, or made self-signed), the fleet
// broker's address and password, the words a night's team names may not use; each a trial the
// table restarts on. A section's script (web/sections/files.py): the page loads it after staff.js.
import { $, api, el, formField, giveFile, locked, say, section, t, unlocked, worded } from "./staff.js";

function filesSection() {
  return el("section", { id: "files-section" },
    worded("h2", "HTTPS certificate"),
    el("p", { id: "tls-line" }),
    el("div", { class: "stack" },
      ...formField("tls-cert", "Certificate (PEM)", { type: "file", accept: ".crt,.pem,.cer" }),
      ...formField("tls-key", "Private key (PEM)", { type: "file", accept: ".key,.pem" })),
    el("div", { class: "row" },
      worded("button", "Use this certificate", { id: "tls-upload", class: "warn" }),
      worded("button", "Make a self-signed certificate", { id: "tls-self", class: "quiet" })),
    worded("h2", "Fleet broker"),
    el("form", { id: "broker-form", class: "stack" },
      ...formField("broker-address", "Broker address (mqtts://USER@HOST:PORT)", { autocomplete: "off", inputmode: "url" }),
      ...formField("broker-table", "This table's name in the fleet", { autocomplete: "off" }),
      ...formField("broker-password", "Broker password (empty: keep the one set)", { type: "password", autocomplete: "new-password" }),
      ...formField("broker-ca", "The CA that signed the broker's certificate (empty: the system's, or the one set)", { type: "file", accept: ".crt,.pem" }),
      worded("p", "A password is set.", { id: "broker-note", class: "note", hidden: "" }),
      worded("button", "Save the broker", { type: "submit", class: "warn" })),
    worded("h2", "Words not allowed in team names (one a line)"),
    el("form", { id: "words-form", class: "stack" },
      el("textarea", { id: "blocked-words", rows: "5", "aria-label": t("Words not allowed in team names (one a line)"),
                       "data-t-label": "Words not allowed in team names (one a line)" }),
      worded("button", "Save the words", { type: "submit", class: "warn" })));
}

async function loadFiles() {
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

$("desk").append(filesSection());
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
section({ owner: (state) => { if (unlocked(state)) return loadFiles(); $("tls-line").textContent = locked(state); } });
