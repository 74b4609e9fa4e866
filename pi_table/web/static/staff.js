// The staff page: log in with the PIN, then the table's game, devices, history, configuration
// and restart. Every request under /staff/api/ carries the session's CSRF token in a header.
// A module, as each section's script is (web/sections/): each names what it takes from this one,
// so no name of one can hide another's (issue 39: a section named ``power`` hid the function that
// powers off). The page loads this script first, then the sections' (web/section.py), each of
// which adds itself with section(): this script imports none of them.

import * as kit from "./kit.js";

const AT_HAND = [
  ["game.language", "Language"], ["leds.brightness", "Brightness"],
  ["timer.length_s", "Turn timer (s, 0: off)"], ["sound.volume", "Volume"],
];
// The table's language, as served in <html lang>, until these staff pick another on this phone.
export let lang = localStorage.getItem("staff-lang") || document.documentElement.lang;
let words = {};
// The words gate: the language of the words the page holds, null before they are here. A part the
// refresh draws (``redraw``) is drawn only once they are, and keyed by them: a part drawn before a
// new language's words arrive is drawn again when they do (issue 63).
let wordsLang = null;
let cardWords = {};  // the board's cells in words: the phones' texts (app.js), which say the cards alike
export let csrf = null;
let settings = null;

// The page's sections, as their scripts add themselves: each part may say what it does when the
// page is refreshed (refresh), every few seconds (poll), when the games offered change (games),
// when the owner's state is known (owner), when the page shows the desk or the login (shown), and
// one asks for the owner's passphrase where an owner's action needs it (askOwner).
const added = [];
export function section(part) {
  added.push(part);
}
// What the sections' ``hook`` does with ``args``: their answers (promises, when they load something).
const tell = (hook, ...args) => added.filter((part) => part[hook]).map((part) => part[hook](...args));

export const $ = (id) => document.getElementById(id);
export function t(text, fields = {}) {
  let said = words[text] || text;
  for (const [name, value] of Object.entries(fields)) said = said.replaceAll(`{${name}}`, value);
  return said;
}
// Numbers and dates in the page's language through the page kit's Intl ("3,44", "29 nov 2026, 12:29"
// on an Italian page: one date form a language, every server's), never in the phone's locale nor
// JavaScript's own (toFixed, String): tests/test_web_i18n.py.
export const number = (value, options = {}) => kit.number(value, options, wordsLang || lang);
export const when = (date, options = kit.DATE) => kit.when(date, options, wordsLang || lang);
export const showOnce = kit.showOnce;
// A date and time a person types, as the page's language writes them ("27/11/2026, 15:53" in
// Italian, "11/27/2026, 15:53" in English), and read back in that order: a phone's own date
// picker writes them as its locale does, whatever the page's language (issue 62, 4).
const TYPED = { year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", hourCycle: "h23" };
export const typedWhen = (date) => when(date, TYPED);
export function readWhen(text) {
  const order = new Intl.DateTimeFormat(wordsLang || lang, TYPED).formatToParts(new Date()).map((part) => part.type)
    .filter((type) => ["year", "month", "day", "hour", "minute"].includes(type));
  const numbers = (text.match(/\d+/g) || []).map(Number);
  if (numbers.length !== 3 && numbers.length !== 5) return null;  // a day alone, or a day and its time
  const given = Object.fromEntries(order.map((type, index) => [type, numbers[index] ?? 0]));
  const date = new Date(given.year, given.month - 1, given.day, given.hour, given.minute);
  const whole = date.getFullYear() === given.year && date.getMonth() === given.month - 1 && date.getDate() === given.day
    && date.getHours() === given.hour && date.getMinutes() === given.minute;
  return whole ? date : null;  // 31/02 or 25:00 is no date, not another one
}
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === "text") node.textContent = value; else node.setAttribute(name, value);
  }
  node.append(...children);
  return node;
}
// Words on the page, in the page's language and again in the one the staff pick (its data-t):
// a heading, a paragraph, a button; a form field's label names the field it is for.
export const worded = (tag, text, attributes = {}) => el(tag, { ...attributes, "data-t": text, text: t(text) });
export const label = (id, text) => worded("label", text, { for: id });
// A form's field and its label, which names it by its id: spread into the form's children.
export const formField = (id, text, attributes = {}, tag = "input") => [label(id, text), el(tag, { id, ...attributes })];

// A live region (a status line) is written only when its words change: a screen reader reads every
// write out again, and the page refreshes itself every few seconds.
export function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

// A part of the page the refresh draws again: only when what it shows changed (``shows``, or the
// page's language), and then the control that had the focus keeps it and a choice being made stays
// chosen, each found again by its id: a refresh never moves a keyboard or takes back a choice.
const drawnFrom = new WeakMap();
export function resultLine(id) {  // a section's line for what its last action did: said, or an error
  return (text, error = false) => {
    const line = $(id);
    line.textContent = text;
    line.classList.toggle("error", error);
    line.hidden = !text;
  };
}

export function redraw(box, shows, build) {
  const key = JSON.stringify([wordsLang, shows]);
  if (wordsLang === null || drawnFrom.get(box) === key) return false;
  drawnFrom.set(box, key);
  const focused = box.contains(document.activeElement) ? document.activeElement.id : "";
  const chosen = [...box.querySelectorAll("select[id], input[id]:not([type=checkbox]):not([type=radio])")]
    .filter((field) => field.dataset.chosen).map((field) => [field.id, field.value]);
  box.replaceChildren(...build());
  for (const [id, value] of chosen) {
    const field = $(id);
    if (field && (field.tagName !== "SELECT" || [...field.options].some((option) => option.value === value))) {
      field.value = value;
      field.dataset.chosen = "1";
    }
  }
  if (focused && $(focused)) $(focused).focus({ preventScroll: true });
  return true;
}
// A field the staff have changed by hand: ``redraw`` keeps its value.
document.addEventListener("input", (event) => { if (event.target.id) event.target.dataset.chosen = "1"; });
document.addEventListener("change", (event) => { if (event.target.id) event.target.dataset.chosen = "1"; });

// An action's result is said beside the control that asked for it, on the screen, and goes with
// the next action (issue 39: said at the top of a long page it was 3,700 px above the button on
// a phone, and stayed there). One result at a time: the one line, moved to where the action is.
let acting = null;  // the control of the action under way

function began(event) {
  const control = event.target.closest("button, select, input, form");
  if (!control || (event.type === "click" && !control.matches("button"))) return;
  if (event.type === "change" && !control.closest("#lang, #log-level, input[type=file]")) return;
  acting = control;
  say("");
}
document.addEventListener("click", began, true);
document.addEventListener("change", began, true);

// An owner's action asked again once the passphrase is given (owner.js): its result beside its own control.
export function resume(control) {  // back to the control an action was asked from, where the owner was
  acting = control;
  if (control && control.isConnected) control.scrollIntoView({ block: "center" });
}
export const actingOn = () => acting;

const message = $("message");  // held: a container redrawn under it cannot lose it

let saidCount = 0;  // the page's messages so far
let quietMark = 0;  // their count when an act's result may still take the page's line: at the load, and once a restart is awaited

export function say(text, error = false, near = acting) {
  if (text) saidCount++;
  message.textContent = text;
  message.classList.toggle("error", error);
  message.hidden = !text;
  if (!text) return;
  let place = near && near.isConnected && near.closest(".row, .field, label, form, ul, .stack") || near;
  // beside a container the page redraws (data-redrawn: the settings at hand, a night's rounds), not in it
  for (let redrawn = place && place.parentElement; redrawn; redrawn = redrawn.parentElement) {
    if (redrawn.hasAttribute("data-redrawn")) place = redrawn;
  }
  if (place && place.isConnected && !place.closest("[hidden], header")) place.after(message);
  else document.querySelector("main").prepend(message);
  message.scrollIntoView({ block: "nearest" });
}

export async function api(method, path, body, background = false) {
  // The page refreshing itself asks the table nothing until the staff have a session: a fresh page
  // is not told to log in before it has been asked anything.
  if (background && !csrf) return { status: 0, ok: false, data: null, response: null };
  const token = csrf;
  const headers = { "X-Staff-Token": token || "", "X-Staff-Lang": lang };
  if (background) headers["X-Staff-Background"] = "1";  // the page refreshing itself keeps no session alive
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  let data = null;
  try { data = await response.clone().json(); } catch { data = null; }
  // Refused for a session the page has since left (logged out, or in again) is no news to the staff.
  if (response.status === 401 && path.startsWith("/staff/api/") && csrf === token) {
    csrf = null;
    show("login");
    say(data && data.error, true, $("login"));
  }
  return { status: response.status, ok: response.ok, data, response };
}

async function loadWords() {
  const loading = lang;
  words = loading === "en" ? {} : await (await fetch(`/staff/words/${loading}`)).json();
  cardWords = await (await fetch(`/staff/cards/${loading}`)).json();
  wordsLang = loading;
  document.documentElement.lang = lang;
  for (const node of document.querySelectorAll("[data-t]")) node.textContent = t(node.dataset.t);
  for (const node of document.querySelectorAll("[data-t-label]")) node.setAttribute("aria-label", t(node.dataset.tLabel));
  for (const node of document.querySelectorAll("[data-t-placeholder]")) node.placeholder = t(node.dataset.tPlaceholder);
  $("board").setAttribute("aria-label", cardWords["the grid"]);
  document.title = `pi-table: ${t("Staff")}`;
  $("lang").value = lang;
}

export function show(what) {
  $("no-pin").hidden = what !== "no-pin";
  $("login").hidden = what !== "login";
  $("desk").hidden = what !== "desk";
  $("logout").hidden = what !== "desk";
  tell("shown", what);
}

async function start() {
  await loadWords();
  const session = await (await fetch("/staff/session")).json();
  if (!session.pin_set) return show("no-pin");
  csrf = session.csrf;
  if (!csrf) return show("login");
  show("desk");
  await refresh();
}

// A new session's token: the login's, a new PIN's, a forgotten PIN's reset (pin.js).
export function signedIn(token) {
  csrf = token;
}

export async function refresh() {
  await Promise.all([loadTable(), loadHistory(), loadConfig(), ...tell("refresh")]);
}

// -- the owner: an owner's action asks for the passphrase where the owner's section is ---------

// The owner's section (owner.js) asks for the passphrase, then does ``retry``; without one, the refusal is said.
function askOwner(error, retry) {
  const asker = added.find((part) => part.askOwner);
  if (asker) asker.askOwner(error, retry); else say(error, true);
}

// The owner's state as the table said it (``{set, left_s}``), told to the sections that show the
// owner's parts: each asks the table for them only while the owner's actions are unlocked; else it
// says why (``locked``), in the table's own words, and asks nothing the table would refuse (a
// refusal is an error in the browser's console).
export function ownerIs(state) {
  reportActs(state);
  return Promise.all(tell("owner", state));
}
// The results of the owner's acts that restarted the table (``results``, web/acts.py), each said
// once by the line of the section that registered its ``act`` (the page's message for one with
// none, unless the page has said something since the restart was asked), locked or not: the
// result, not the power; it replaces that line's "Asked: ...".
const actsSaid = {};
export function reportActs(state) {
  for (const [name, kept] of Object.entries(state.results || {})) {
    if (kept.at <= (actsSaid[name] || 0)) continue;
    actsSaid[name] = kept.at;
    const part = added.find((each) => each.act === name);
    if (part) part.result(kept.said);
    else if (saidCount === quietMark) say(kept.said);  // never over a message said since: it would be older news
  }
}
export const unlocked = (state) => state.set && state.left_s > 0;
// An owner's view (a section's GET of what holds the owner's files or passwords) asked only while
// this phone acts as the owner: no 403 (or 409) otherwise. Locked, its ``hidden`` parts are hidden
// and its ``line`` says what it needs (null); else the answer, ``draw``n when it is ok. Told the
// owner's state as it changes (unlocked on this page: drawn at once, not at the next poll).
export async function ownersView(state, view, background = false) {
  if (!unlocked(state)) {
    for (const id of view.hidden) $(id).hidden = true;
    $(view.line).textContent = t("This needs the owner's passphrase: give it under Owner.");
    return null;
  }
  const answer = await api("GET", view.path, undefined, background);
  if (answer.ok) view.draw(answer.data);
  return answer;
}
// The owner's state asked again (the results of its acts said), then given to ``view``: an owner's section's poll.
export async function withOwner(view, background = false) {
  const owner = await api("GET", "/staff/api/owner", undefined, background);
  if (!owner.ok) return;
  reportActs(owner.data);  // a result kept across the restart it caused settles what was asked
  await view(owner.data, background);
}
export function locked(state) {
  return state.set ? t("this needs the owner's passphrase: give it under Owner, then try again")
    : t("this needs the owner, and no owner's passphrase is set: sudo pi-table set-owner-passphrase");
}

// An action of the owner's: done, or the passphrase asked for and the action done again, or why
// not, said by ``report``: the page's message beside the control, or a section's own result line
// (emptied while the passphrase is asked for, so no result of before stands beside it).
export async function ownersAction(call, done, report = say) {
  const answer = await call();
  if (answer.ok) return done(answer);
  if (answer.status === 403 && answer.data && answer.data.owner === "needed") {
    report("");
    return askOwner(answer.data.error, () => ownersAction(call, done, report));
  }
  if (answer.status !== 401) report(answer.data ? answer.data.said || answer.data.error : `HTTP ${answer.status}`, true);
}

// A file the owner gives the table (``/staff/api/files/KIND``): a trial the table restarts on, and
// goes back from by itself; ``report`` says what came of it, and the field ``secret`` (a password,
// an address with one) is emptied once the table took it.
export function giveFile(kind, body, report = say, secret = null) {
  return ownersAction(() => api("POST", `/staff/api/files/${kind}`, body), (answer) => {
    if (secret !== null) $(secret).value = "";
    report(answer.data.said);
    backAfterRestart();
  }, report);
}

// -- the table ----------------------------------------------------------------------------

export let grid = null;  // how the grid is drawn, as the table's answer says: cells in reading order, the operatives' edge

export function inPlace(node, cell) {
  // A cell of a picture of the grid, put where the layout has it (the page's nodes stay in cell order).
  if (grid) node.style.order = grid.order.indexOf(cell);
  return node;
}

// The headline: the game in play by its name, then where it stands (its id is small print, for support).
function drawTable(table) {
  const state = table.state;
  const standing = state.reason ? [`${t("over")}: ${state.reason}`]
    : [state.turn && `${t("turn")}: ${t(state.turn)}`, state.phase && t(state.phase), state.step && t(state.step)];
  drawGames(table.games);
  $("game-line").textContent = [gameName(state.game), ...standing].filter(Boolean).join(" · ");
  $("game-id").textContent = table.game_id;
  const board = $("board");
  board.replaceChildren();
  grid = table.grid;
  // each cell by its number and colour, where every picture of the grid has it (pi_table/ui/orientation.py)
  $("board-table").dataset.operatives = grid.operatives;
  $("board-table").hidden = typeof state.board !== "string";  // a game without the grid's cards
  if (typeof state.board === "string") {
    // to a screen reader, a table (ARIA's pattern for a static structure) of five rows in the page's
    // order, each cell named by its number, its word once a spymaster confirmed the cards', and its state
    const cells = [...state.board].map((shown, cell) => {
      const word = state.words && shown !== "." ? state.words[cell] : null;
      return el("span", { class: shown === "." ? "no-card" : shown === "?" ? "hidden" : shown, role: "cell", "data-cell": cell,
        "aria-label": `${word ? `${cell} ${word}` : cell}, ${cardState(shown)}` }, String(cell), ...(word ? [el("small", { class: "word", text: word })] : []));
    });
    board.append(...[0, 1, 2, 3, 4].map((row) => el("div", { role: "row" }, ...grid.order.slice(row * 5, row * 5 + 5).map((cell) => cells[cell]))));
  }
  $("devices").replaceChildren(...table.devices.map((device) => {
    const bad = !!device.advice;
    const item = el("li", {}, el("strong", { text: t(deviceName(device.device)) }), ": ",  // a label and its state
      el("span", { class: bad ? "bad" : "", text: t(device.health) }));
    if (bad) item.append(el("span", { class: "advice", text: t(device.advice) }));
    return item;
  }));
  $("warnings").replaceChildren(...table.warnings.map((warning) => el("p", { class: "message error", text: warning })),
    ...settingsNotes(table.settings));
  $("version").textContent = t("version {version}, up {uptime}", { version: table.version, uptime: `${number(Math.round(table.uptime_s))} s` });
}

// A card's state in words (the phones' page says it alike): what a revealed card is, or that it is hidden.
const CARDS = { R: "red agent", B: "blue agent", N: "bystander", A: "assassin" };
function cardState(shown) {
  const said = (msgid) => cardWords[msgid] || msgid;
  if (shown === ".") return said("no card");
  if (shown === "?") return said("hidden");
  return said("{card}, revealed").replace("{card}", said(CARDS[shown] || shown));
}

// The settings' trial: a change waiting to prove itself, and the last one the table rolled back.
export function settingsNotes(state) {
  const notes = [];
  if (!state) return notes;
  if (state.trial) {
    notes.push(el("p", { class: "message", text: t("New settings on trial ({keys}): they are kept once the table is healthy on them; if it is not, the last good ones come back by themselves.", { keys: (state.trial.labels || state.trial.keys).join(", ") }) }));
  }
  const back = state.rolled_back;
  if (back) {
    const time = back.at ? when(new Date(back.at * 1000)) : "?";
    notes.push(el("p", { class: "message error", text: t("The settings changed at {time} ({keys}) were rolled back, and the last good ones are in use: {why}", { time, keys: (back.labels || back.keys).join(", "), why: back.why }) }));
  }
  if (state.refused) {  // a file edited by hand that the table would not start on: the owner may discard it
    const discard = el("button", { type: "button", text: t("Discard the refused file") });
    discard.addEventListener("click", discardRefused);
    notes.push(el("p", { class: "message error", text: state.refused.why }), discard);
  }
  return notes;
}

// The refused settings file replaced by the last good one (the owner's), then the restart that applies it.
function discardRefused() {
  return ownersAction(() => api("POST", "/staff/api/config/discard", {}), () => {
    say(t("Discarded: the table restarts on its last good settings."));
    backAfterRestart();
  });
}

const DEVICES = { touch: "the touch board", leds: "the LED strip", screen: "the spymaster screen",
  buttons: "the buttons", companion: "the phones' pages", journal: "the journal", sound: "the sound",
  fleet: "the fleet's broker" };
const deviceName = (name) => DEVICES[name] || name;
// The games the table offers and the options each is dealt with, as the table describes them
// (the table's "games", in the page's language): the new-game form is drawn from them.
let offered = [];
// A game by its name in the table's JSON ("codenames"), as the table titles it in the page's language.
function gameName(game) {
  const found = offered.find((each) => each.game === game);
  return found ? found.title : game || "?";
}
function drawGames(games) {
  if (JSON.stringify(games) === JSON.stringify(offered)) return;  // unchanged: the staff's choices stay
  offered = games;
  const select = $("new-game-game");
  const chosen = select.value;
  select.replaceChildren(...games.map((game) => el("option", game.not_offered  // shown, not chosen: the table refuses it
    ? { value: game.game, text: `${game.title}: ${game.not_offered}`, disabled: "" } : { value: game.game, text: game.title })));
  if (games.some((game) => game.game === chosen)) select.value = chosen;
  showOptions();
  tell("games", games);  // night.js: the games a night may play
  drawHistory();
}
// One option's field: a checkbox, or a list of its words or of the numbers it takes, at its default.
function optionField(option) {
  if (option.kind === "bool") {
    const box = el("input", { type: "checkbox", name: option.name });
    box.checked = option.default === true;
    return el("label", {}, box, " ", el("span", { text: option.label }));
  }
  const span = option.range;
  const values = option.choices.length ? option.choices
    : Array.from({ length: span.max - span.min + 1 }, (_, n) => ({ value: span.min + n, label: String(span.min + n) }));
  const select = el("select", { name: option.name }, ...values.map((choice) => el("option", { value: String(choice.value), text: choice.label })));
  select.value = String(option.default);
  return el("label", {}, el("span", { text: option.label }), " ", select);
}
// An option's value as the form holds it, of the option's kind.
function optionValue(option, field) {
  if (option.kind === "bool") return field.checked;
  return option.kind === "str" ? field.value : Number(field.value);
}

export async function loadTable(background = false) {
  const answer = await api("GET", "/staff/api/table", undefined, background);
  if (answer.ok) drawTable(answer.data);
}

async function act(path, body, done) {  // ``done``: what the table did, said once it has
  const answer = await api("POST", path, body);
  if (answer.ok) { drawTable(answer.data); say(done); loadHistory(); }
  else if (answer.status !== 401) say(answer.data ? answer.data.error : `HTTP ${answer.status}`, true);
}

// -- the history --------------------------------------------------------------------------

let played = null;  // the history's games as the table last answered

async function loadHistory() {
  const answer = await api("GET", "/staff/api/history");
  if (!answer.ok) return;
  played = answer.data.games;
  drawHistory();
}

// The history names each game by its title (``offered``): drawn once the titles are here, and again
// when they change (the table's answer and the history's come in either order).
function drawHistory() {
  const games = played;
  if (!games || !offered.length) return;
  if (!games.length) return redraw($("history"), [], () => [el("tr", {}, el("td", { text: t("no games yet") }))]);
  // the words guessed only where a spymaster confirmed the cards' words: a column no game fills would
  // widen the table past a phone's width for nothing
  const guessing = games.some((game) => (game.guessed || []).length > 0);
  const columns = ["started", "Game", "result", "moves", "duration", ...(guessing ? ["words guessed"] : [])];
  const head = el("tr", {}, ...columns.map((name) => el("th", { text: t(name) })));
  // newest first: the first, unless it is over, is the game in play
  redraw($("history"), [games, offered], () => [head, ...games.map((game, index) => el("tr", {},
    el("td", { text: game.started ? when(new Date(game.started)) : game.id || "" }),
    el("td", { text: gameName(game.game) }),
    el("td", { text: game.error || (game.over ? game.reason : t(index === 0 ? "in play" : "unfinished")) }),
    el("td", { text: game.moves ?? "" }),
    el("td", { class: "duration", text: game.duration_s == null ? "" : `${number(Math.round(game.duration_s / 60))} min` }),
    ...(guessing ? [el("td", { text: (game.guessed || []).join(", ") })] : [])))]);
}

export async function download(path, name) {
  const answer = await api("GET", path);
  if (answer.ok) await saveFile(answer, name);
}

// A file the table answered with, saved on the phone under the name the table gave it (a backup's
// names the table and the day), else as ``name``.
export async function saveFile(answer, name) {
  const given = /filename="([^"/\\]+)"/.exec(answer.response.headers.get("Content-Disposition") || "");
  const link = el("a", { href: URL.createObjectURL(await answer.response.blob()), download: given ? given[1] : name });
  document.body.append(link);
  link.click();
  link.remove();
}

// -- the configuration --------------------------------------------------------------------

function inForce(option) {  // a setting's value in force, as its field shows it
  const value = option.value;
  return Array.isArray(value) ? JSON.stringify(value) : String(value);
}

function read(option, input) {
  if (option.kind === "bool") return input.checked;
  const text = input.value.trim();
  const choice = option.choices.find((each) => String(each.value) === text);
  if (choice) return choice.value;
  if (option.kind === "int" || option.kind === "number") return text !== "" && !Number.isNaN(Number(text)) ? Number(text) : text;
  if (option.kind === "pin") return text === "false" ? false : text !== "" && !Number.isNaN(Number(text)) ? Number(text) : text;
  if (option.kind.endsWith("_list") || option.kind === "int_lists") { try { return JSON.parse(text); } catch { return text; } }
  return text;
}

// A setting's field: a checkbox, a drop-down of its choices, a number in its range, or text.
function settingInput(option) {
  if (option.kind === "bool") return el("input", { type: "checkbox", name: option.key, ...(option.value ? { checked: "" } : {}) });
  if (option.choices.length) {
    const choices = option.choices.some((each) => String(each.value) === inForce(option)) ? option.choices
      : [...option.choices, { value: option.value, label: inForce(option) }];  // a value the file holds, shown as it is
    const select = el("select", { name: option.key }, ...choices.map((each) => el("option", { value: String(each.value), text: each.label })));
    select.value = inForce(option);
    return select;
  }
  const numeric = option.kind === "int" || option.kind === "number";
  const attributes = { name: option.key, value: inForce(option), type: numeric ? "number" : "text" };
  if (numeric) attributes.step = option.kind === "int" ? "1" : "any";
  if (numeric && option.range) Object.assign(attributes, { min: Math.min(option.range.min, option.range.off ?? Infinity), max: option.range.max });
  return el("input", attributes);
}

// A setting in the form: its label in words, its field, unit and range, help, and its key in small print.
function settingField(option) {
  const id = `setting-${option.key}`;
  const control = settingInput(option);
  Object.assign(control, { id });
  control.setAttribute("aria-describedby", `${id}-problem`);
  const caption = el("label", { for: id, text: option.label });
  const parts = option.kind === "bool" ? [el("span", { class: "check" }, control, caption)] : [caption, control];
  return el("div", { class: "field", "data-key": option.key }, ...parts,
    option.hint ? el("small", { class: "hint", text: option.hint }) : "", el("small", { class: "help", text: option.help }),
    el("small", { class: "key", text: option.key }),
    el("span", { class: "problem", id: `${id}-problem`, role: "alert", hidden: "" }));
}

// A refused save: each problem beside its field, the first one opened, scrolled to and focused.
// A refused save: each problem beside its field, the first one opened, scrolled to and focused;
// the problems of no field in the form, which the page says by the Save button.
function showProblems(problems) {
  const form = $("config");
  for (const field of form.querySelectorAll(".field.refused")) {
    field.classList.remove("refused");
    field.querySelector(".problem").hidden = true;
  }
  let first = null;
  const elsewhere = [];
  for (const problem of problems) {
    const field = problem.key && form.querySelector(`.field[data-key="${CSS.escape(problem.key)}"]`);
    if (!field) { elsewhere.push(problem.whole); continue; }
    const note = field.querySelector(".problem");
    note.textContent = note.hidden ? problem.said : `${note.textContent}\n${problem.said}`;
    note.hidden = false;
    field.classList.add("refused");
    first = first || field;
  }
  if (first) {
    first.closest("details").open = true;
    first.scrollIntoView({ block: "center" });
    first.querySelector("input, select").focus({ preventScroll: true });
  }
  return elsewhere;
}

// A refused setting's fields show the value in force again (the refusal says what was refused).
function putBack(key) {
  const option = settings.options.find((each) => each.key === key);
  if (!option) return;
  for (const control of document.querySelectorAll(`#config [name="${CSS.escape(key)}"], #at-hand [name="${CSS.escape(key)}"]`)) {
    if (option.kind === "bool") control.checked = Boolean(option.value); else control.value = inForce(option);
  }
}

async function loadConfig() {
  const answer = await api("GET", "/staff/api/config");
  if (!answer.ok) return;
  settings = answer.data;
  $("config-file").textContent = settings.file || t("no configuration file: the table runs on its defaults");
  const form = $("config");
  const groups = new Map(Object.entries(settings.groups).map(([group, name]) =>
    [group, el("details", { "data-group": group }, el("summary", { text: name }))]));
  for (const option of settings.options) groups.get(option.group).append(settingField(option));
  form.replaceChildren(...[...groups.values()].filter((group) => group.children.length > 1),
    el("button", { type: "submit", text: t("Save and apply") }));
  form.querySelector("button").disabled = !settings.file;
  // The settings at hand change the table only when applied: an arrow key that reads a choice
  // (or a finger that slips) must not set the table's language.
  const hand = $("at-hand");
  hand.replaceChildren();
  for (const [key, label] of AT_HAND) {
    const option = settings.options.find((each) => each.key === key);
    if (option) hand.append(el("label", {}, t(label), settingInput(option)));
  }
  hand.append(el("button", { type: "submit", text: t("Save and apply") }));
}

// The staff's changes saved (``atHand``: the settings at hand, whose refusal is said beside them).
async function save(changes, atHand = false) {
  if (!Object.keys(changes).length) return;
  const answer = await api("POST", "/staff/api/config", { changes });
  if (answer.ok && !answer.data.restarting) { say(t("Saved and applied.")); return refresh(); }
  if (answer.ok) { say(t("Saved: the table restarts to apply it and resumes its game.")); return backAfterRestart(); }
  if (answer.status === 401) return;
  if (answer.status === 403 && answer.data && answer.data.owner === "needed") return askOwner(answer.data.error, () => save(changes, atHand));
  if (!answer.data || !answer.data.problems) return say(answer.data ? answer.data.error : `HTTP ${answer.status}`, true);
  for (const problem of answer.data.problems) if (problem.key) putBack(problem.key);
  if (atHand) return say(answer.data.said, true);
  say(showProblems(answer.data.problems).join("\n"), true);
}

export async function backAfterRestart() {
  quietMark = saidCount;
  for (let tries = 0; tries < 60; tries++) {
    await new Promise((done) => setTimeout(done, 1000));
    try {
      const session = await (await fetch("/staff/session")).json();
      csrf = session.csrf;
      if (!csrf) return show("login");
      return refresh();
    } catch { /* still restarting */ }
  }
}


// -- wiring -------------------------------------------------------------------------------

$("lang").addEventListener("change", async () => {
  lang = $("lang").value;
  localStorage.setItem("staff-lang", lang);
  await loadWords();
  if (csrf) refresh();
});
// A refused PIN: the field says it is wrong and is described by the refusal the page says.
function refused(wrong) {
  for (const [name, value] of [["aria-invalid", "true"], ["aria-describedby", "message"]]) {
    if (wrong) $("pin").setAttribute(name, value); else $("pin").removeAttribute(name);
  }
}
// While many phones log in at once, the table asks a new one for the code on its screen (the
// answer says ``line``): the field shows, and the code goes with the PIN.
$("login").addEventListener("submit", async (event) => {
  event.preventDefault();
  const code = $("code-field").hidden ? "" : $("code").value.trim();
  const answer = await api("POST", "/staff/login", code ? { pin: $("pin").value, code } : { pin: $("pin").value });
  $("pin").value = "";
  $("code").value = "";
  refused(!answer.ok);
  if (answer.data && answer.data.line) $("code-field").hidden = false;
  if (!answer.ok) return say(answer.data ? answer.data.error : `HTTP ${answer.status}`, true);
  $("code-field").hidden = true;
  csrf = answer.data.csrf;
  say("");
  show("desk");
  $("heading").focus();  // a screen reader starts at the desk's top, not the page's body
  refresh();
});
$("logout").addEventListener("click", async () => {
  const leaving = api("POST", "/staff/api/logout");  // sent with the session's token, which the page
  csrf = null;  // forgets at once: none of its refreshes starts after the press
  say("");
  show("login");
  await leaving;
});
$("undo").addEventListener("click", () => act("/staff/api/undo", undefined, t("Undone: the last action is taken back.")));
$("end-game").addEventListener("click", () => {
  if (confirm(t("End the game on the table? It stays in the history, unfinished."))) {
    act("/staff/api/end-game", undefined, t("Ended: the game stays in the history, unfinished, and a new one is dealt."));
  }
});
// The new-game form shows the chosen game's options only.
function showOptions() {
  const game = offered.find((each) => each.game === $("new-game-game").value);
  $("new-game-options").replaceChildren(...(game ? game.options.map(optionField) : []));
}
$("new-game-game").addEventListener("change", showOptions);
$("new-game").addEventListener("submit", (event) => {
  event.preventDefault();
  const game = offered.find((each) => each.game === $("new-game-game").value);
  if (!game || !confirm(t("Deal a new game? The game on the table stays in the history."))) return;
  const form = event.target;
  const options = Object.fromEntries(game.options.map((option) => [option.name, optionValue(option, form.elements[option.name])]));
  act("/staff/api/new-game", { game: game.game, options }, t("Dealt: a new game of {game}.", { game: game.title }));
});
$("at-hand").addEventListener("submit", (event) => {
  event.preventDefault();
  const changes = {};
  for (const [key] of AT_HAND) {
    const option = settings.options.find((each) => each.key === key);
    const field = option && event.target.elements[key];
    if (field && JSON.stringify(read(option, field)) !== JSON.stringify(option.value)) changes[key] = read(option, field);
  }
  save(changes, true);
});
$("config").addEventListener("submit", (event) => {
  event.preventDefault();
  const changes = {};
  for (const option of settings.options) {
    const field = event.target.elements[option.key];
    const value = read(option, field);
    if (JSON.stringify(value) !== JSON.stringify(option.value)) changes[option.key] = value;
  }
  save(changes);
});
$("export-csv").addEventListener("click", () => download("/staff/api/history.csv", "pi-table-history.csv"));
$("export-json").addEventListener("click", () => download("/staff/api/history?download", "pi-table-history.json"));
$("restart").addEventListener("click", async () => {
  if (!confirm(t("Restart the table's service? The game resumes where it was."))) return;
  const answer = await api("POST", "/staff/api/restart");
  if (answer.ok) { say(t("The service is restarting…")); backAfterRestart(); }
});
setInterval(() => { if (csrf && !$("desk").hidden) { loadTable(true); tell("poll"); } }, 5000);
// The sections' scripts run after this one, before the document's DOMContentLoaded: each has added itself by then.
document.addEventListener("DOMContentLoaded", start);
