// The companion page: one file for every kind of page. It shows what the table sends for this
// page's token (or the public view) and nothing else; it keeps no state of its own but the
// language its phone chose.
//
// Every text it shows is an English msgid marked with t(), tn() or N_(): the server
// hands the page their translations from the table's catalogue (/api/texts), and a test checks
// that the catalogue has them all. Engine sentences in a view (why a game ended) come translated.
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
    if (value === null || value === undefined) continue;  // an attribute left out, e.g. disabled: null
    if (name === "class") node.className = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

// --- the page's language -------------------------------------------------------------------------
// The table's language is in <html lang> as served; a phone that picks another keeps it.

const LANG_KEY = "pi-table-lang";
const tableLang = document.documentElement.lang;
// The words gate: until the page's words are here (``lang`` null) nothing is drawn in words, since
// an English msgid drawn then under <html lang="it"> would stay (issue 63). What draws in words is
// drawn in ``inWords``: at once when the words are here, and again each time they arrive.
let words = {lang: null, languages: [], texts: {}, teams: {}};
const drawnInWords = [];

function inWords(draw) {
  // ``draw`` a part of the page in words now if its words are here, and again whenever they change.
  if (!drawnInWords.includes(draw)) drawnInWords.push(draw);
  if (words.lang !== null) draw();
}

function chosenLang() {
  try { return localStorage.getItem(LANG_KEY) || tableLang; } catch (error) { return tableLang; }
}

function N_(msgid) {
  // Marks a msgid for the catalogue where it is looked up later (a table of words).
  return msgid;
}

function team(name) {
  // A team's or faction's name inside a text: t() gives it the form its template asks for
  // ({team} la squadra rossa, {team:m} l'agente rosso), as the table's screen does.
  return {team: name};
}

function teamWord(name, form = "") {
  const forms = words.teams[name];
  return forms ? forms[form] : name;
}

function tn(msgid, values = {}) {
  // A text in the page's language as parts: its fields filled in, nodes kept as nodes.
  const template = words.texts[msgid] || msgid;
  const parts = template.split(/(\{\w+(?::\w+)?\})/);
  return parts.map((part, index) => {
    if (index % 2 === 0) return part;
    const [name, form] = part.slice(1, -1).split(":");
    if (!(name in values)) return part;
    const value = values[name];
    if (value instanceof Node) return value;
    if (value && value.team !== undefined) return teamWord(value.team, form);
    return String(value);
  }).filter((part) => part !== "");
}

function t(msgid, values = {}) {
  // The sentence as said: its fields filled in, then its language's sound rule ("ad Aleman").
  const said = tn(msgid, values).join("");
  return words.euphony ? said.replace(new RegExp(words.euphony[0], "g"), words.euphony[1]) : said;
}

function number(value, options = {}) {
  // A number in the page's language ("3,44" on an Italian page), never JavaScript's own.
  return new Intl.NumberFormat(words.lang || tableLang, options).format(value);
}

function sayIn(region, text, error = false) {
  // A live region (the status line, what the table just did) is written only when its words
  // change: a screen reader reads every write out again, and the page redraws every second.
  if (region.textContent !== text) region.textContent = text;
  region.classList.toggle("error", error);
}

function capital(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

async function speak(lang) {
  // Load the page's texts in `lang` and say everything again in it.
  const answer = await fetch(`/api/texts?lang=${encodeURIComponent(lang)}`);
  words = await answer.json();
  document.documentElement.lang = words.lang;
  for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  languageSwitch();
  for (const draw of drawnInWords) draw();
}

function languageSwitch() {
  // The chips are made once and marked in place: the one a keyboard pressed keeps the focus.
  const nav = document.getElementById("languages");
  if ([...nav.children].map((chip) => chip.lang).join() !== words.languages.join()) {
    nav.replaceChildren(...words.languages.map((code) => el("button", {
      type: "button", lang: code, translate: "no", onclick: () => choose(code)}, code.toUpperCase())));
  }
  for (const chip of nav.children) {
    chip.setAttribute("aria-pressed", String(chip.lang === words.lang));
    chip.className = chip.lang === words.lang ? "chip picked" : "chip";
  }
}

async function choose(lang) {
  // The phone's own choice: remembered, the texts loaded, the view asked for again in it.
  try { localStorage.setItem(LANG_KEY, lang); } catch (error) { /* a private window: this visit only */ }
  await speak(lang);
  lastAct = null;  // a refusal said in the old language: the status line says where the game stands again
  listen();
}

async function act(text) {
  // Hands one action to the table; the new view comes back on the event stream.
  const answer = await fetch(`${api}/act?lang=${encodeURIComponent(words.lang)}`, {
    method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({action: text}),
  });
  const body = await answer.json().catch(() => ({ok: false, error: t("the table answered {status}", {status: answer.status})}));
  sayIn(statusLine, body.ok ? t("sent") : body.error, !body.ok);
  const stage = stageOf(shown);
  lastAct = {at: stage && stage.at, ok: body.ok};
  return body.ok;
}

let lastAct = null;  // where the game stood at this page's last action, and whether the table took it
let shown = null;  // the page on screen, drawn again when a choice changes
// What a kind's own script adds (page.html loads each after this one): the renderers of its pages,
// and where a page's game stands (its step), which the status line follows.
const stages = {};

function stageOf(page) {
  // Where the page's game stands, {at, title}, for a kind of page that says it; else null.
  const stage = page && stages[page.kind];
  return stage ? stage(page) : null;
}

function followStage(page) {
  // The status line says where the game stands; an action's "sent" or refusal stays beside it
  // until the game moves on.
  const stage = stageOf(page);
  if (!stage) return;
  const same = lastAct && lastAct.at === stage.at;
  if (same && !lastAct.ok) return;
  sayIn(statusLine, same ? t("{step} · sent", {step: stage.title}) : stage.title);
}

const CARDS = {R: N_("red agent"), B: N_("blue agent"), N: N_("bystander"), A: N_("assassin")};

function cardState(letter, shown) {
  // A cell's state in words, for a screen reader: what the card is where the page knows it
  // (the key, or a revealed card), and whether it is still hidden.
  if (shown === ".") return t("no card");
  if (letter === "?") return t("hidden");
  const card = t(CARDS[letter] || letter);
  return shown === "?" ? t("{card}, hidden", {card}) : t("{card}, revealed", {card});
}

function grid(board, key, cards, layout) {
  // The 5x5 grid as every picture of it is drawn (pi_table/ui/orientation.py): each cell by its
  // number, placed where `layout` puts it, the operatives' edge marked. `board` has "?" for hidden
  // cards; `key`, on the spymaster's page only, says what each one is; `cards`, from a simulated
  // table, the card's word (in the table's language), sized to its cell so that it stays whole
  // from a phone to a TV. To a screen reader it is a table (ARIA's pattern for a static structure,
  // read cell by cell) of five rows in the page's order, each cell named by its number, its word and
  // its state (the rows are no boxes of their own: the cells lay out in the grid's columns).
  const cells = [...board].map((shown, cell) => {
    const letter = key ? key[cell] : shown;
    const classes = ["cell", letter === "?" ? "hidden" : letter === "." ? "dark" : letter];
    if (key && shown !== "?" && shown !== ".") classes.push("shown");
    const known = letter !== "?" && letter !== ".";
    const id = `cell-${cell}`;
    const word = cards && letter !== "." ? el("span", {class: "word", id: `${id}-word`, lang: tableLang}, cards[cell]) : null;
    if (word) word.style.setProperty("--letters", cards[cell].length);
    const state = el("span", {id: `${id}-state`, hidden: ""}, cardState(letter, shown));
    const number = known || word ? el("small", {class: "number", id: `${id}-number`}, cell) : el("span", {id: `${id}-number`}, cell);
    return el("div", {class: classes.join(" "), "data-cell": cell, role: "cell",
      "aria-labelledby": [number.id, word ? word.id : null, state.id].filter(Boolean).join(" ")},
      number, known ? el("span", {class: "mark", "aria-hidden": "true"}, letter) : null, word, state);
  });
  const rows = [0, 1, 2, 3, 4].map((row) => el("div", {role: "row"}, layout.order.slice(row * 5, row * 5 + 5).map((cell) => cells[cell])));
  return el("div", {class: cards ? "table words" : "table", "data-operatives": layout.operatives},
    el("div", {class: "edge"}, t("operatives' side")),
    el("div", {class: "grid", role: "table", "aria-label": t("the grid")}, rows));
}

const UNLIMITED = "unlimited";
const PHASES = {clue: N_("{team} is in its clue phase"), guess: N_("{team} is in its guess phase"),
  cover: N_("{team} is in its cover phase"), place: N_("{team} is in its place phase")};

function turnLine(view) {
  // Whose turn it is, or the game's end with who won and why.
  if (view.turn) return capital(t(PHASES[view.phase], {team: team(view.turn)}));
  if (!view.winner) return t("Game over: {reason}", {reason: view.reason || ""});
  return view.reason ? t("Game over: the {team} team wins ({reason})", {team: team(view.winner), reason: view.reason})
    : t("Game over: the {team} team wins", {team: team(view.winner)});
}

function clueLine(view) {
  // The clue's number as the spymaster entered it (the clue's word is said aloud at the table): a
  // number or the word "unlimited" (the table's JSON), said in the page's language; null before one.
  return view.clue === null ? null : t("clue {clue}", {clue: view.clue === UNLIMITED ? t("unlimited") : view.clue});
}

function summary(view) {
  const parts = [turnLine(view)];
  // no counts while Deep Undercover's codenames are placed: the key is not drawn yet
  if (view.remaining) parts.push(t("red {red} left · blue {blue} left", view.remaining));
  if (view.clue !== null) parts.push(clueLine(view));
  return el("p", {id: "summary"}, parts.join(" · "));
}

let heard = null;  // the page as last announced: what changes after it is said
// What a kind of page says when its view changes, from its view before: a kind's own script adds its own.
const heralds = {};

function announce(page) {
  // What changed on the page is said once, politely (the page's first view is read as a whole,
  // not announced).
  const before = heard && heard.game_id === page.game_id && heard.kind === page.kind ? heard : null;
  heard = page;
  const herald = heralds[page.kind];
  const said = before && herald ? herald(before, page) : [];
  if (said.length) sayIn(document.getElementById("said"), said.join(". "));
}

heralds.board = heralds.spymaster = (before, page) => {
  // A touch at the table: the card it revealed, the turn that follows, a clue's number once entered.
  const view = page.view, was = before.view;
  const said = [...view.board].flatMap((shown, cell) => shown === was.board[cell] || shown === "?" || shown === "." ? []
    : [t("{cell} revealed: {card}", {cell: page.words ? `${cell} ${page.words[cell]}` : cell, card: t(CARDS[shown] || shown)})]);
  if (turnLine(view) !== turnLine(was)) said.push(turnLine(view));
  if (view.clue !== null && clueLine(view) !== clueLine(was)) said.push(capital(clueLine(view)));
  return said;
};

renderers.waiting = () => [el("p", {class: "note"}, t("The table is starting."))];
renderers.board = (page) => [summary(page.view), grid(page.view.board, null, page.words, page.grid)];
renderers.spymaster = (page) => [
  el("p", {class: "note"}, t("The key: keep this screen away from the operatives.")),
  summary(page.view), grid(page.view.board, page.view.key, page.words, page.grid), readingPanel(page),
];

// Reading the cards (web/reading.py): a photo of the laid-out cards, taken from the spymasters'
// side as the grid above is drawn, read by the table; the 25 words in their places to fix (a few
// letters complete a word of the deck) and confirm as the game's. The panel is made once a game
// (and language) and kept across the views, so what is typed stays; the picture is sent to be read
// and kept nowhere.
let reading = null;  // {game, lang, node}

function readingPanel(page) {
  if (reading && reading.game === page.game_id && reading.lang === words.lang) return reading.node;
  const query = `?lang=${encodeURIComponent(words.lang)}`;
  const result = el("p", {id: "cards-result", role: "status"});
  const picture = el("input", {id: "cards-picture", type: "file", accept: "image/*", capture: "environment"});
  const take = el("p", {id: "cards-take", class: "take", hidden: ""}, el("label", {for: "cards-picture"}, t("Read the cards")), picture);
  const deck = el("datalist", {id: "cards-deck"});
  const cells = el("div", {class: "cards-words"});
  const form = el("form", {id: "cards-form", "data-form": "cards", hidden: ""}, cells, deck,
    el("button", {type: "submit", id: "cards-confirm"}, t("Confirm the words")));
  const node = el("section", {id: "reading", "aria-labelledby": "reading-title"},
    el("h2", {id: "reading-title"}, t("The words on the cards")), take, form, result);
  fetch(`${api}/cards${query}`).then((answer) => answer.json()).then((offer) => {
    take.hidden = !offer.available;
    if (!offer.available) sayIn(result, offer.unavailable);
    deck.replaceChildren(...offer.deck.map((word) => el("option", {value: word})));
  }).catch(() => sayIn(result, t("the table answered {status}", {status: 0}), true));
  picture.addEventListener("change", async () => {
    const file = picture.files[0];
    if (!file) return;
    sayIn(result, t("Reading the cards…"));
    const answer = await fetch(`${api}/cards${query}`, {method: "POST", body: file,
      headers: {"Content-Type": file.type || "application/octet-stream"}});
    picture.value = "";
    const read = await answer.json().catch(() => ({ok: false, error: t("the table answered {status}", {status: answer.status})}));
    if (!read.ok) return sayIn(result, read.error, true);
    // the words in reading order, each in its cell's place; a word not read is left to type
    cells.replaceChildren(...page.grid.order.map((cell, index) => el("div", {class: "cards-cell"},
      el("label", {for: `cards-word-${cell}`}, t("card {cell}", {cell})),
      el("input", {id: `cards-word-${cell}`, type: "text", list: "cards-deck", maxlength: "20", required: "",
        autocomplete: "off", spellcheck: "false", lang: tableLang, value: read.words[index] || ""}))));
    form.hidden = false;
    sayIn(result, t("Check each word against its card, fix any, then confirm."));
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const told = [...Array(25).keys()].map((cell) => document.getElementById(`cards-word-${cell}`).value.trim());
    if (await act(`words ${told.join(" ")}`)) {
      form.hidden = true;
      sayIn(result, t("The words are confirmed: every screen shows them."));
    }
  });
  reading = {game: page.game_id, lang: words.lang, node};
  return node;
}

// Who reads a kind of page, after its game's title: the tab's (and a screen reader's) name of the
// page. A kind's own script adds its pages' readers.
const readers = {
  board: (page) => [gameTitle(page.view.game), t("spectators")],
  spymaster: (page) => [gameTitle(page.view.game), t("the key")],
};

function gameTitle(name) {
  // A game's title in the page's language, as the table's registry of games gives it.
  return (words.games || {})[name] || name;
}

function titled(page) {
  const reader = page.view && readers[page.kind];
  return reader ? reader(page) : ["pi-table"];
}

function controls(root) {
  return root ? [...root.querySelectorAll("input,button,select,textarea")] : [];
}

function render(page) {
  // Draw the page again; the control that had the keyboard's focus keeps it (found again by its
  // id), and a text box being typed in its caret: a keyboard or switch user never starts over. A
  // control that is gone or spent (a fragment chip used, a form sent) hands the focus to the next
  // control of its form, else to the step's heading: never to the page's body.
  shown = page;
  const focused = app.contains(document.activeElement) ? document.activeElement : null;
  const active = focused ? focused.id : "";
  const caret = active && focused.type === "text" ? focused.selectionStart : null;
  const form = focused && focused.closest("[data-form]") ? focused.closest("[data-form]").dataset.form : null;
  const place = form ? controls(focused.closest("[data-form]")).indexOf(focused) : -1;
  const draw = renderers[page.kind];
  document.getElementById("title").textContent = page.title || titled(page)[0];
  document.title = titled(page).join(" · ");
  const nodes = draw ? draw(page) : [el("p", {class: "error"}, t("unknown page {kind}", {kind: page.kind}))];
  app.replaceChildren(...nodes.filter((node) => node !== null));
  followStage(page);
  announce(page);
  if (!focused) return;
  const again = active && document.getElementById(active);
  if (again && !again.disabled) {
    again.focus({preventScroll: true});
    if (caret !== null) again.setSelectionRange(caret, caret);
    return;
  }
  const near = controls(app.querySelector(`[data-form="${form}"]`)).slice(Math.max(place, 0)).find((control) => !control.disabled);
  (near || app.querySelector("h2[tabindex]") || app.querySelector("h2") || app).focus({preventScroll: true});
}

// A new view waits while a button or finger is down on the page: drawing it would replace the node
// the press began on, and a click whose press and release land on different nodes is never fired
// (the tap lost, on a night when the table redraws for every agent's move and every second of a
// timer). The newest view is drawn once the press ends; a finger left resting holds it no longer
// than PRESS_HOLD_MS.
const PRESS_HOLD_MS = 1000;
let pressed = false;
let held = null;  // the newest view that arrived during the press
let holding = null;  // the timer that ends the hold

function show(page) {
  if (!pressed) return render(page);
  held = page;
  if (!holding) holding = setTimeout(release, PRESS_HOLD_MS);
}

function release() {
  clearTimeout(holding);
  pressed = false;
  holding = null;
  const page = held;
  held = null;
  if (page) render(page);
}

app.addEventListener("pointerdown", () => { pressed = true; });
// after the release's click has run: it comes after pointerup, in the same task
for (const end of ["pointerup", "pointercancel"]) window.addEventListener(end, () => setTimeout(release));

let events = null;  // the view's event stream, in the page's language

function listen() {
  // (Again) follow the page's view, in the page's language: the engine's sentences come translated.
  if (events) events.close();
  events = new EventSource(`${api}/events?lang=${encodeURIComponent(words.lang)}`);
  events.onopen = () => sayIn(statusLine, t("connected"));
  events.onmessage = (message) => show(JSON.parse(message.data));
  if (!match) events.addEventListener("night", () => standings());  // the table told of a change of the night
  events.addEventListener("gone", (message) => {
    // The token opens nothing now: a new game, or this seat was given a new link (another phone's).
    events.close();
    const replaced = JSON.parse(message.data || "{}").replaced;
    shown = held = null;
    app.replaceChildren(el("p", {class: "hide"}, replaced
      ? t("This seat's link was replaced: scan the new code on the table's screen.")
      : t("This page belonged to a game that has ended. Scan the new code.")));
    sayIn(statusLine, replaced ? t("link replaced") : t("game over"));
  });
  events.onerror = () => {
    sayIn(statusLine, t("connection lost, trying again…"), true);
    // A dropped connection the browser retries by itself; one the table answered with an error
    // (503 past its cap for streams) it gives up on for good: try again as the table's
    // Retry-After says, with a little jitter so many phones do not come back at once.
    if (events.readyState === EventSource.CLOSED) setTimeout(listen, RETRY_MS + Math.random() * RETRY_MS);
  };
}
const RETRY_MS = 10000;  // the companion's Retry-After (pi_table/web/server.py, RETRY_S)

// --- a game night's standings, on the spectators' page while a night is open (/night/standings) ---
// The table tells the page of each change of the night on its event stream ("night"); the page then
// fetches the standings, and otherwise once a minute (a stream down). The table is drawn quietly; a
// separate live region says what changed: a round paired, a team's win, a team withdrawn.

const STANDING = [N_("played"), N_("won"), N_("lost"), N_("byes"), N_("points")];  // a line's columns, then the tie-breaks'
// The night's tie-breaks (its "tiebreaks": their words in its order, the columns they add) come with it from the
// table's one list of them (pi_table/night/scoring.py), their words in the page's texts.

function placed(line) {
  // A line's place: "3=" when teams the tie-breaks leave level share it.
  return line.shared ? `${line.place}=` : `${line.place}.`;
}

const STANDINGS_POLL_MS = 60000;  // a stream down: the standings still come, a minute late at most

const blocksShown = {};  // by a block's id, what it last drew, in its language
let nightKnown = null;  // the night as last fetched: what changed since is said

async function standings() {
  let night = null;
  let league = null;
  try {
    const answer = await fetch("/night/standings", {cache: "no-store"});
    if (answer.ok) ({night, league} = await answer.json());
  } catch (error) { /* the table is away: the block keeps what it showed */ return; }
  sayChanges(nightKnown, night);
  nightKnown = night;
  leagueKnown = league || null;
  inWords(drawStandings);
  inWords(drawLeague);
}

// --- the café's league, below the night (issue 64): the season its broker's bridge brought down ---

const SEASON = [N_("Nights"), N_("Points"), N_("played"), N_("won"), N_("lost"), N_("rating")];
const SEASON_FIELDS = ["nights", "points", "played", "won", "lost", "rating"];
let leagueKnown = null;  // the league's season as last fetched (null: the café is in none, or none heard yet)

function redrawn(id, known, fill) {
  // The block ``id`` drawn again (its children ``fill(known)``) only when what it shows or the page's words
  // changed since it was last drawn; hidden and empty while nothing is ``known``.
  const drawing = JSON.stringify([words.lang, known]);
  if (drawing === blocksShown[id]) return;
  blocksShown[id] = drawing;
  const box = document.getElementById(id);
  box.hidden = !known;
  box.replaceChildren(...(known ? fill(known) : []));
}

function drawLeague() {
  redrawn("league", leagueKnown, (season) => [
    el("h2", {}, t("The league {league}", {league: season.league})),
    el("div", {class: "scroll", tabindex: "0", role: "region", "aria-label": t("The season")}, el("table", {class: "facts"},
      el("tr", {}, el("th", {}, t("Team")), SEASON.map((name) => el("th", {}, t(name)))),
      season.season.map((line) => el("tr", {class: "standing"}, el("td", {}, `${placed(line)} ${line.team}`),
        SEASON_FIELDS.map((field) => el("td", {}, number(line[field])))))))]);
}

function drawStandings() {
  redrawn("standings", nightKnown, standingsBlock);
}

function standingsBlock(night) {
  // The night's block: its standings, the round under way and who sits it out.
  const round = night.closed ? null : night.rounds[night.rounds.length - 1];
  const columns = [...STANDING.map((name) => [name, name]), ...night.tiebreaks.columns];
  // The teams that asked to sit out the round under way and the next one (a bye at their asking).
  const asked = round ? [round.number, round.number + 1].map((number) => [number, (night.rests || {})[String(number)] || []])
    .filter(([, names]) => names.length) : [];
  return [
    el("h2", {}, night.closed ? `${t("Final standings")}: ${night.name}` : `${t("Standings")}: ${night.name}`),
    el("p", {class: "tiebreak"}, t("Tie-break: {tiebreak}", {tiebreak: night.tiebreaks.words.map((said) => t(said)).join(", ")})),
    el("div", {class: "scroll", tabindex: "0", role: "region", "aria-label": t("Standings")}, el("table", {class: "facts"},
      el("tr", {}, el("th", {}, t("Team")), columns.map(([name]) => el("th", {}, t(name)))),
      night.standings.map((line) => el("tr", {class: ["standing", ...(line.withdrawn ? ["withdrawn"] : [])].join(" ")},
        el("td", {}, `${placed(line)} ${line.team}`, line.withdrawn ? el("span", {class: "mark"}, ` (${t("withdrawn")})`) : null),
        columns.map(([, field]) => el("td", {}, number(line[field]))))))),
    ...crossTable(night),
    round ? el("h3", {}, t("Round {number}", {number: round.number})) : null,
    round ? el("ul", {class: "pairs"}, round.pairs.map((pair) =>
      el("li", {}, `${t("table")} ${pair.table}: ${pair.red} – ${pair.blue}`))) : null,
    round && round.resting.length ? el("p", {class: "resting"}, `${t("sitting out")}: ${round.resting.join(", ")}`) : null,
    ...asked.map(([number, names]) => el("p", {class: "asked"},
      t("Round {number}, sitting out at their asking: {teams}", {number, teams: names.join(", ")}))),
  ].filter((node) => node !== null);
}

const CROSS_KEY = N_("Each round: the opponent's row, then the points scored; + or − a forfeit won or lost (− both, a double loss); – no game (a bye, a round missed, a void pair); … still played.");

function crossTable(night) {
  // The night's cross-table (the table's, from the standings above: pi_table/night/crosstable.py): each line's
  // rounds, its opponent's row and the points scored, written as the printed page writes them.
  const rows = night.crosstable || [];
  if (!night.rounds.length || !rows.length) return [];
  const cell = (each) => `${each.opponent === null ? "–" : number(each.opponent)} ${each.scored === null ? "…"
    : each.forfeit ? (each.scored ? "+" : "−") : number(each.scored)}`;
  return [
    el("h3", {}, t("Cross-table")),
    el("p", {class: "crosskey"}, t(CROSS_KEY)),
    el("div", {class: "scroll", tabindex: "0", role: "region", "aria-label": t("Cross-table")}, el("table", {class: ["facts", "crosstable"].join(" ")},
      el("tr", {}, el("th", {}, t("Team")), night.rounds.map((made) => el("th", {}, t("Round {number}", {number: made.number})))),
      rows.map((row, n) => el("tr", {}, el("td", {}, `${number(n + 1)}. ${row.team}`), row.rounds.map((each) => el("td", {}, cell(each)))))))];
}

function sayChanges(before, now) {
  // What changed since the last fetch, in words, once (the live region): not the whole table again.
  if (words.lang === null || !before || !now || before.name !== now.name) return;
  const said = [];
  if (now.rounds.length > before.rounds.length) said.push(t("Round {number} is paired", {number: now.rounds.length}));
  const was = Object.fromEntries(before.standings.map((line) => [line.team, line]));
  for (const line of now.standings) {
    const old = was[line.team];
    if (old && line.won > old.won) said.push(t("{team} won", {team: line.team}));
    if (old && line.withdrawn && !old.withdrawn) said.push(t("{team} has withdrawn", {team: line.team}));
  }
  if (said.length) sayIn(document.getElementById("standings-said"), said.join(". "));
}

speak(chosenLang()).then(listen, listen);
if (!match) { standings(); setInterval(standings, STANDINGS_POLL_MS); }  // the spectators' page only, not a seat's
