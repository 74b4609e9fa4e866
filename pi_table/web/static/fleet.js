// The fleet dashboard's page (pi_table/fleet/dashboard.py): the tables' rows, kept by the server's
// events, and the game nights' standings. Its words and the standings' columns come with the page
// (the JSON in #fleet-words), in the page's language.
"use strict";
const { words: WORDS, standing: STANDING } = JSON.parse(document.getElementById("fleet-words").textContent);
const LANG = document.documentElement.lang;  // the page's language, not the phone's locale
const number = new Intl.NumberFormat(LANG, { maximumFractionDigits: 2 });
const time = new Intl.DateTimeFormat(LANG, { timeStyle: "medium" });
const rows = new Map();
function length(s) { return s == null ? "" : Math.floor(s / 60) + ":" + String(Math.round(s % 60)).padStart(2, "0"); }
function cell(text, cls) { const td = document.createElement("td"); td.textContent = text; if (cls) td.className = cls; return td; }
// Each cell named by its column's head, which a phone's card shows above its value.
function labelled(tr) {
  const heads = tr.closest("table").tHead.rows[0].cells;
  [...tr.cells].forEach((td, column) => { td.dataset.label = heads[column].textContent; });
}
function draw(row) {
  let tr = rows.get(row.table_id);
  if (!tr) {
    tr = document.createElement("tr");
    rows.set(row.table_id, tr);
    const sorted = [...rows.keys()].sort();
    const after = rows.get(sorted[sorted.indexOf(row.table_id) + 1]);
    document.getElementById("rows").insertBefore(tr, after || null);
  }
  tr.replaceChildren();
  tr.className = row.online ? "online" : "offline";
  tr.append(cell(row.table_id));
  const on = cell(row.online ? WORDS.online : row.heard ? WORDS.offline : WORDS.unheard);
  const dot = document.createElement("span"); dot.className = "dot " + (row.online ? "on" : "off"); on.prepend(dot);
  tr.append(on);
  tr.append(cell(row.game ? row.game_title + ": " + WORDS[row.activity] : WORDS.idle));
  const faults = row.faults.concat(row.errors);
  if (row.dropped) faults.push(WORDS.dropped.replace("{count}", row.dropped).replace("{why}", () => row.dropped_why));
  tr.append(cell(faults.length ? faults.join("; ") : WORDS.none, faults.length ? "fault" : ""));
  tr.append(cell(String(row.games_today)));
  tr.append(cell(row.endings.map(([said, count]) => said + " ×" + count).join("; ")));
  tr.append(cell(length(row.average_s)));
  tr.append(cell(row.seen ? time.format(new Date(row.seen * 1000)) : ""));
  labelled(tr);
  const online = [...rows.values()].filter(r => r.className === "online").length;
  document.getElementById("count").textContent =
    WORDS.tables[online === 1 ? 0 : 1].replace("{online}", online).replace("{count}", rows.size);
}
function element(name, text) { const made = document.createElement(name); made.textContent = text; return made; }
// Each night a host runs: its name, its host, and its standings.
function nights(list) {
  document.getElementById("nights").replaceChildren(...list.map((night) => {
    const section = document.createElement("section");
    section.className = "night";
    const head = document.createElement("tr");
    const columns = [...STANDING, ...night.columns];  // and those of the tie-breaks the night orders
    head.append(...["team", ...columns].map((key) => element("th", WORDS[key])));
    const body = document.createElement("tbody");
    body.append(...night.standings.map((line) => {
      const tr = document.createElement("tr");
      // teams the tie-breaks leave level share a place, as on the staff page
      const name = line.place + (line.shared ? "= " : ". ") + line.team + (line.withdrawn ? " (" + WORDS.withdrawn + ")" : "");
      tr.append(cell(name), ...columns.map((key) => cell(typeof line[key] === "number" ? number.format(line[key]) : line[key] ?? "")));
      return tr;
    }));
    const table = document.createElement("table");
    table.append(element("thead", ""), body);
    table.tHead.append(head);
    body.querySelectorAll("tr").forEach(labelled);
    const scroll = document.createElement("div");
    Object.assign(scroll, {className: "scroll", tabIndex: 0});
    scroll.setAttribute("role", "region");
    scroll.setAttribute("aria-label", WORDS.standings.replace("{night}", () => night.name));
    scroll.append(table);
    const host = WORDS.hosted.replace("{host}", () => night.host) + (night.open ? "" : " · " + WORDS.closed)
      + (night.apart ? " · " + WORDS.apart : "");
    if (night.apart) section.classList.add("apart");
    // every standings page names the night's tie-breaks, in its order and the page's language
    const tiebreak = WORDS.tiebreak.replace("{tiebreak}", () => night.tiebreak_words[LANG]);
    section.append(element("h2", WORDS.standings.replace("{night}", () => night.name)), element("p", host),
                   element("p", tiebreak), scroll);
    return section;
  }));
}
const stream = new EventSource("/events");
stream.onmessage = (message) => draw(JSON.parse(message.data));
stream.addEventListener("nights", (message) => nights(JSON.parse(message.data)));
