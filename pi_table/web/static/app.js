// The companion page: one file for every kind of page. It shows what the table sends for this
// page's token (or the public view) and nothing else; it keeps no state of its own.
"use strict";

const match = location.pathname.match(/^\/p\/([A-Za-z0-9_-]+)$/);
const api = match ? `/api/p/${match[1]}` : "/api/public";
const app = document.getElementById("app");
const statusLine = document.getElementById("status");
const renderers = {};

function el(tag, attrs = {}, ...children) {
  // Text goes in as text nodes, never as HTML: names and facts come from players.
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (name === "class") node.className = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

async function act(text) {
  // Hands one action to the table; the new view comes back on the event stream.
  const answer = await fetch(`${api}/act`, {
    method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({action: text}),
  });
  const body = await answer.json().catch(() => ({ok: false, error: `the table answered ${answer.status}`}));
  statusLine.textContent = body.ok ? "sent" : body.error;
  statusLine.className = body.ok ? "" : "error";
  return body.ok;
}

function grid(board, key) {
  // The 5x5 grid from the operatives' side: `board` has "?" for hidden cards; `key`, on the
  // spymaster's page only, says what each one is.
  return el("div", {class: "grid", "aria-label": "the grid"}, [...board].map((shown, cell) => {
    const letter = key ? key[cell] : shown;
    const classes = ["cell", letter === "?" ? "hidden" : letter === "." ? "dark" : letter];
    if (key && shown !== "?" && shown !== ".") classes.push("shown");
    return el("div", {class: classes.join(" "), "data-cell": cell}, letter === "?" ? cell : letter);
  }));
}

function summary(view) {
  const turn = view.turn ? `${view.turn} to play, ${view.phase} phase` : `over: ${view.reason || ""}`;
  return el("p", {id: "summary"},
    `${turn} · red ${view.remaining.red} left · blue ${view.remaining.blue} left`,
    view.clue !== null ? ` · clue ${view.clue}` : "");
}

renderers.waiting = () => [el("p", {class: "note"}, "The table is starting.")];
renderers.board = (page) => [summary(page.view), grid(page.view.board, null)];
renderers.spymaster = (page) => [
  el("p", {class: "note"}, "The key: keep this screen away from the operatives."),
  summary(page.view), grid(page.view.board, page.view.key),
];

function render(page) {
  const draw = renderers[page.kind];
  document.getElementById("title").textContent = page.title || "pi-table";
  app.replaceChildren(...(draw ? draw(page) : [el("p", {class: "error"}, `unknown page ${page.kind}`)]));
}

const events = new EventSource(`${api}/events`);
events.onopen = () => { statusLine.textContent = "connected"; statusLine.className = ""; };
events.onmessage = (message) => render(JSON.parse(message.data));
events.addEventListener("gone", () => {
  events.close();
  app.replaceChildren(el("p", {class: "hide"}, "This page belonged to a game that has ended. Scan the new code."));
  statusLine.textContent = "game over";
});
events.onerror = () => { statusLine.textContent = "connection lost, trying again…"; statusLine.className = "error"; };
