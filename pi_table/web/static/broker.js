// The staff page's café's broker: the owner makes this table the broker the café's tables report
// to (the root helper sets Mosquitto up), then sees for each other table what to give on its own
// staff page (the broker's address, its name, its password until the owner says it was given, the
// CA certificate), adds tables later, gives one a new password or takes one off. Its result shows
// beside its button. A section's script (web/sections/broker.py): the page loads it after staff.js.
import { $, api, csrf, download, el, formField, label, ownersAction, ownersView, resultLine, section, t, withOwner, worded } from "./staff.js";

const CA_FILE = "pi-table-broker-ca.crt";
let asked = null;  // when the table took the change asked (its clock): settled once the broker's note is as new
let ours = false;  // this table is the broker already: a set-up is a set-up again

function brokerSection() {
  // The league's name and this café's name in it: joining a league and hosting one ask them alike.
  const leagueNames = (form) => [label(`${form}-name`, "The league's name"), label(`${form}-cafe`, "This café's name in the league")]
    .flatMap((named) => [named, el("input", { id: named.htmlFor, maxlength: "64", autocomplete: "off", spellcheck: "false", required: "" })]);
  return el("section", { id: "cafe-broker-section", "aria-labelledby": "cafe-broker-title" },
    worded("h2", "The café's broker", { id: "cafe-broker-title" }),
    el("p", { id: "cafe-broker-line" }),
    el("p", { id: "cafe-broker-last", class: "note", hidden: "" }),
    el("div", { id: "cafe-broker-given", hidden: "" },
      worded("p", "On each table's own staff page, under Fleet broker, give what is shown here for it, and the CA certificate.", { class: "note" }),
      worded("button", "Download the CA certificate", { id: "cafe-broker-ca", type: "button" }),
      el("ul", { id: "cafe-broker-tables", class: "keys" }),
      el("form", { id: "cafe-broker-add", class: "stack" },
        ...formField("cafe-broker-more", "Add tables (one name a line)", { rows: "2", spellcheck: "false", autocomplete: "off", required: "" }, "textarea"),
        worded("button", "Add these tables", { type: "submit" })),
      // a league across cafés (issue 64): what its organiser gave, the bridge a trial that comes back unless it links
      worded("h3", "A league"),
      el("p", { id: "cafe-broker-league", class: "note" }),
      el("form", { id: "cafe-broker-join", class: "stack" },
        ...leagueNames("cafe-league"),
        ...formField("cafe-league-address", "The league's address", { maxlength: "253", autocomplete: "off", spellcheck: "false", required: "" }),
        ...formField("cafe-league-port", "The league's port", { type: "number", min: "1", max: "65535", value: "8883", required: "" }),
        ...formField("cafe-league-password", "This café's password in the league", { type: "password", maxlength: "128", autocomplete: "off", required: "" }),
        ...formField("cafe-league-ca", "The league's CA certificate", { type: "file", accept: ".crt,.pem", required: "" }),
        worded("button", "Join the league", { type: "submit" })),
      // or the league hosted here: the other cafés log in to this broker, each given what it joins by
      worded("h3", "Host a league on this broker"),
      el("p", { id: "cafe-league-hosting", class: "note" }),
      el("ul", { id: "cafe-league-cafes", class: "keys" }),
      el("div", { id: "cafe-league-page", hidden: "" }),
      el("form", { id: "cafe-broker-host", class: "stack" },
        ...leagueNames("cafe-host"),
        ...formField("cafe-host-cafes", "The other cafés (one a line: its name, then its password or nothing to have one made)", { rows: "4", spellcheck: "false", autocomplete: "off", required: "" }, "textarea"),
        worded("button", "Host the league", { type: "submit" }))),
    el("form", { id: "cafe-broker-form", class: "stack", hidden: "" },
      ...formField("cafe-broker-address", "Its name on the café's network (the other tables reach it there)", { maxlength: "253", autocomplete: "off", spellcheck: "false", required: "" }),
      ...formField("cafe-broker-table", "This table's name in the fleet", { maxlength: "64", autocomplete: "off", spellcheck: "false", required: "" }),
      ...formField("cafe-broker-others", "The café's other tables (one name a line)", { rows: "4", spellcheck: "false", autocomplete: "off" }, "textarea"),
      el("button", { id: "cafe-broker-set-up", type: "submit" })),
    el("p", { id: "cafe-broker-result", class: "message", role: "status", hidden: "" }));
}

const brokerResult = resultLine("cafe-broker-result");

const lines = (text) => text.split("\n").map((line) => line.trim()).filter((line) => line);

const row = (name, value) => el("div", {}, `${t(name)}: `, el("code", { text: String(value) }));

// A password the owner is still to give (or the note that it was), its "given" button, and a new one asked.
function handedOut(item, name, password, what, renewQuestion) {
  item.append(password ? row(what, password) : el("div", { class: "note", text: t("Given: ask a new one if it is lost.") }));
  if (password) {
    const given = el("button", { type: "button", "data-table": name, text: t("I have given this password: stop keeping it here") });
    given.addEventListener("click", () => changeBroker({ act: "given", table: name }));
    item.append(given);
  }
  renewButton(item, name, renewQuestion);
}

function renewButton(item, name, question) {
  const renew = el("button", { type: "button", class: "warn", "data-renew": name, text: t("New password") });
  renew.addEventListener("click", () => { if (confirm(question)) changeBroker({ act: "renew", table: name }); });
  item.append(" ", renew);  // apart from the name, or the button before it
}

const renewOther = (name) => t("A new password for {name}? Its old one stops working at once: give it the new one on its staff page.", { name });

function tableItem(table, data) {
  const own = table.name === data.this_table;
  const item = el("li", {}, el("strong", { text: table.name }), own ? ` (${t("this table")})` : "");
  if (own) {
    renewButton(item, table.name, t("A new password for this table? It restarts to use it."));
    return item;
  }
  item.append(row("Broker address", table.broker), row("This table's name in the fleet", table.name));
  handedOut(item, table.name, table.password, "Broker password", renewOther(table.name));
  const remove = el("button", { type: "button", class: "warn", "data-remove": table.name, text: t("Remove") });
  remove.addEventListener("click", () => {
    if (confirm(t("Take {name} off the broker? Its password stops working at once, and this table restarts to leave it out of the café's tables.", { name: table.name }))) {
      changeBroker({ act: "remove", table: table.name });
    }
  });
  item.append(" ", remove);
  return item;
}

// What a café of the league hosted here is given to join it, on its own broker's staff page.
function cafeItem(cafe, hosting) {
  const item = el("li", {}, el("strong", { text: cafe.name }),
    row("The league's name", hosting.league), row("The league's address", hosting.address),
    row("The league's port", hosting.port), row("This café's name in the league", cafe.name));
  handedOut(item, cafe.name, cafe.password, "This café's password in the league", renewOther(cafe.name));
  return item;
}

// The organiser's page (pi-table league) on the league hosted here: its user's password until given, and its command.
function leaguePage(hosting) {
  const page = hosting.page;
  const command = `pi-table league --broker ${page.broker} --broker-password-file league.password --ca ${CA_FILE} `
    + `--league ${hosting.league} --roster roster.toml --host 0.0.0.0 --port 8026`;
  const item = el("div", {}, el("p", { class: "note", text: t("The league's page: put its password in league.password, the CA certificate beside it, and run:") }),
    el("pre", {}, el("code", { id: "cafe-league-command", text: command })));
  handedOut(item, "league", page.password, "The league's page's password", renewOther("league"));
  return [item];
}

function drawBroker(data) {
  const line = !data.installed ? t("Mosquitto is not installed on this table: sudo systemd/install.sh installs it.")
    : data.helper ? data.helper
      : data.ours ? `${t("This table is the café's broker at {address}.", data)} ${t(data.uses ? "This table reports to it." : "This table does not report to it yet.")}`
        : t("This table is not the café's broker. Made the broker, it is the one the café's tables report to, and its dashboard can show them all.");
  $("cafe-broker-line").textContent = line;
  if (asked !== null && !data.pending && data.last && data.last.at >= asked) {
    brokerResult(data.last.outcome === "done" && !data.refused ? t("Done.") : "");  // else why, in its line
    asked = null;
  }
  ours = data.ours;
  const last = data.last;
  const said = data.pending ? t("Setting the broker up: a moment...")
    : data.refused ? data.refused
      : last && last.outcome === "rolled back" ? t("Not done, and the broker before is back: {why}", { why: last.why || "?" })
        : last && last.outcome === "failed" ? t("Not done: {why}", { why: last.why || "?" }) : "";
  $("cafe-broker-last").textContent = said;
  $("cafe-broker-last").hidden = !said;
  $("cafe-broker-last").classList.toggle("error", Boolean(said) && !data.pending);
  $("cafe-broker-given").hidden = !data.ours;
  $("cafe-broker-league").textContent = data.league
    ? t(data.league.sends ? "This café is in the league {league} as {cafe}: the nights its tables host go to it."
      : "This café's broker is bridged to the league {league} as {cafe}; this table does not send it its nights yet.", data.league)
    : t("This café is in no league. Its organiser gives the league's name and address, this café's name and password there, and the league's CA certificate.");
  $("cafe-broker-tables").replaceChildren(...data.tables.map((table) => tableItem(table, data)));
  const hosting = data.hosting;
  $("cafe-league-hosting").textContent = hosting
    ? t("This broker hosts the league {league}, this café in it as {cafe}. Give each café what is shown for it, and the CA certificate.", hosting)
    : t("A league's broker can be this one: the other cafés' brokers then bridge to it, each with the password shown here once.");
  $("cafe-league-cafes").replaceChildren(...(hosting ? hosting.cafes.map((cafe) => cafeItem(cafe, hosting)) : []));
  $("cafe-league-page").replaceChildren(...(hosting ? leaguePage(hosting) : []));
  $("cafe-league-page").hidden = !hosting;
  $("cafe-broker-form").hidden = !data.installed || Boolean(data.helper);
  $("cafe-broker-set-up").textContent = t(data.ours ? "Set it up again" : "Make this table the café's broker");
  if (document.activeElement === null || !$("cafe-broker-form").contains(document.activeElement)) {
    $("cafe-broker-address").value = data.address || data.suggested.address;
    $("cafe-broker-table").value = data.this_table || data.suggested.table;
    $("cafe-broker-others").value = (data.ours ? data.tables.map((table) => table.name).filter((name) => name !== data.this_table)
      : data.suggested.tables).join("\n");
  }
}

// The broker's view is the owner's: it holds passwords.
const VIEW = { path: "/staff/api/broker", draw: drawBroker, line: "cafe-broker-line",
  hidden: ["cafe-broker-form", "cafe-broker-given", "cafe-broker-last"] };
const showBroker = (state, background = false) => ownersView(state, VIEW, background);
const loadBroker = (background = false) => withOwner(showBroker, background);

// A change asked: the broker read every 2 s until the helper has settled it (seconds), through the
// restart of this table that may follow and until the owner's actions are unlocked again after it.
async function follow() {
  for (let tries = 0; asked !== null && tries < 150; tries++) {
    try { await loadBroker(true); } catch { /* the table restarting */ }
    if (asked !== null) await new Promise((done) => setTimeout(done, 2000));
  }
}

function changeBroker(body) {
  return ownersAction(() => api("POST", "/staff/api/broker", body), (answer) => {
    brokerResult(body.act === "given" ? "" : body.act === "remove" ? t("Asked: the table takes {name} off the broker in a moment.", { name: body.table })
      : t("Asked: the table sets the broker up in a moment."));
    if (body.act === "add") $("cafe-broker-more").value = "";
    if (body.act === "host") $("cafe-host-cafes").value = "";  // the passwords typed: shown by the page until given
    asked = body.act === "given" ? null : answer.data.asked;
    if (asked === null) loadBroker(true); else follow();
  }, brokerResult);
}

function wireBroker() {
  $("desk").append(brokerSection());
  $("cafe-broker-form").addEventListener("submit", (event) => {
    event.preventDefault();
    if (!confirm(t(ours ? "Set the broker up again? Every table gets a new password: each must be given its new one."
      : "Make this table the café's broker? Each table in the list gets a new password, and this table restarts to report to it."))) return;
    changeBroker({ act: "set-up", address: $("cafe-broker-address").value.trim(), table: $("cafe-broker-table").value.trim(),
      tables: lines($("cafe-broker-others").value) });
  });
  $("cafe-broker-add").addEventListener("submit", (event) => {
    event.preventDefault();
    changeBroker({ act: "add", tables: lines($("cafe-broker-more").value) });
  });
  $("cafe-broker-ca").addEventListener("click", () => download("/staff/api/broker/ca.crt", CA_FILE));
  $("cafe-broker-join").addEventListener("submit", async (event) => {
    event.preventDefault();
    const [file] = $("cafe-league-ca").files;
    if (!file || !confirm(t("Join the league? The café's broker restarts with a bridge to it, and comes back as it was if the league does not take it; this table then restarts to send it its nights."))) return;
    changeBroker({ act: "join", league: $("cafe-league-name").value.trim(), cafe: $("cafe-league-cafe").value.trim(),
      address: $("cafe-league-address").value.trim(), port: Number($("cafe-league-port").value),
      password: $("cafe-league-password").value, ca: await file.text() });
    $("cafe-league-password").value = "";
  });
  $("cafe-broker-host").addEventListener("submit", (event) => {
    event.preventDefault();
    if (!confirm(t("Host the league on this broker? Each café gets its password (the one typed, or a new one), and this table restarts to send the league its nights."))) return;
    const cafes = {};
    for (const line of lines($("cafe-host-cafes").value)) {
      const [name, password = ""] = line.split(/\s+/);
      cafes[name] = password;
    }
    changeBroker({ act: "host", league: $("cafe-host-name").value.trim(), cafe: $("cafe-host-cafe").value.trim(), cafes });
  });
  setInterval(() => { if (csrf && !$("desk").hidden && asked === null) loadBroker(true); }, 15000);
}

wireBroker();
section({ act: "broker", result: (said) => { asked = null; brokerResult(said); }, owner: (state) => showBroker(state, true) });  // once logged in (the page tells the owner's state), and at each unlock
