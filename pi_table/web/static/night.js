// The game night on the staff page (after staff.js, whose api(), t(), el(), say() and download() it uses):
// open a night (with the points of a bye and its tie-break), add teams and approve or remove those from the
// phones, withdraw a team and bring it back, propose, swap and confirm rounds (asked first over a round still
// played), enter and correct results, the standings and the night's history, close and export (CSV, TRF);
// follow a night another table offers (with its code) and leave it. The page reads the night every 5 s:
// each part is drawn again only when what it shows changed (staff.js's redraw), so a refresh never moves
// the keyboard's focus nor takes back a choice being made. A module of staff.js's.
import { $, api, csrf, download, el, redraw, say, t } from "./staff.js";

function nightSection() {
  return el("section", { id: "night-section" },
    el("h2", { "data-t": "Game night", text: t("Game night") }),
    el("p", { id: "night-state", class: "note" }),
    el("p", { id: "night-host", class: "note", hidden: "" }),
    el("p", { id: "night-code", hidden: "" }),
    el("div", { id: "night-offers", "data-redrawn": "" }),
    el("form", { id: "night-open", class: "stack" },
      el("label", { for: "night-name", "data-t": "Night's name", text: t("Night's name") }),
      el("input", { id: "night-name", maxlength: "40", required: "" }),
      el("fieldset", { id: "night-games", class: "games" }, el("legend", { "data-t": "Games", text: t("Games") })),
      el("label", { for: "night-tables", "data-t": "Tables (their names, separated by spaces)",
                    text: t("Tables (their names, separated by spaces)") }),
      el("input", { id: "night-tables", value: "1" }),
      el("label", { for: "night-bye", "data-t": "A bye (a round sat out) scores", text: t("A bye (a round sat out) scores") }),
      el("select", { id: "night-bye" },
        el("option", { value: "1", "data-t": "a win (1 point)", text: t("a win (1 point)") }),
        el("option", { value: "0.5", "data-t": "a draw (½ point)", text: t("a draw (½ point)") }),
        el("option", { value: "0", "data-t": "nothing (0 points)", text: t("nothing (0 points)") })),
      el("label", { for: "night-tiebreak", "data-t": "Tie-break after points", text: t("Tie-break after points") }),
      el("select", { id: "night-tiebreak" },
        el("option", { value: "rating", "data-t": "rating, then margin", text: t("rating, then margin") }),
        el("option", { value: "buchholz", "data-t": "Buchholz (the points of the teams met), then rating",
                       text: t("Buchholz (the points of the teams met), then rating") })),
      el("button", { type: "submit", "data-t": "Open the night", text: t("Open the night") })),
    el("div", { id: "night-open-desk", hidden: "" },
      el("form", { id: "night-join", class: "stack" },
        el("label", { for: "night-team", "data-t": "Team", text: t("Team") }),
        el("input", { id: "night-team", maxlength: "24", required: "" }),
        el("label", { for: "night-nicknames", "data-t": "Nicknames (optional, separated by commas)",
                      text: t("Nicknames (optional, separated by commas)") }),
        el("input", { id: "night-nicknames" }),
        el("button", { type: "submit", "data-t": "Add the team", text: t("Add the team") })),
      el("p", { id: "night-teams" }),
      el("div", { id: "night-remove-row", class: "row", hidden: "" },
        el("select", { id: "night-remove-team", "aria-label": t("Team"), "data-t-label": "Team" }),
        el("button", { id: "night-remove", class: "quiet", "data-t": "Remove", text: t("Remove") }),
        el("button", { id: "night-withdraw", class: "quiet", "data-t": "Withdraw", text: t("Withdraw") })),
      el("div", { id: "night-withdrawn", "data-redrawn": "" }),
      el("div", { id: "night-waiting", "data-redrawn": "" }),
      el("div", { class: "row" },
        el("button", { id: "night-propose", "data-t": "Propose the next round", text: t("Propose the next round") }),
        el("button", { id: "night-confirm", "data-t": "Confirm the round", text: t("Confirm the round") })),
      el("div", { id: "night-round", "data-redrawn": "" }),
      el("p", { id: "night-still", class: "note" }),
      el("div", { id: "night-results", "data-redrawn": "" }),
      el("h3", { "data-t": "Standings", text: t("Standings") }),
      el("p", { id: "night-tiebreak-used", class: "note" }),
      el("div", { class: "scroll", tabindex: "0", role: "region", "aria-label": t("Standings"), "data-t-label": "Standings" },
        el("table", { id: "night-standings", class: "history" })),
      el("div", { id: "night-history" }),
      el("div", { class: "row" },
        el("button", { id: "night-csv", class: "quiet", "data-t": "Export CSV", text: t("Export CSV") }),
        el("button", { id: "night-trf", class: "quiet", "data-t": "Export for a tournament program (TRF)",
                       text: t("Export for a tournament program (TRF)") }),
        el("button", { id: "night-print", class: "quiet", "data-t": "Print", text: t("Print") }),
        el("button", { id: "night-close", class: "warn", "data-t": "Close the night", text: t("Close the night") }),
        el("button", { id: "night-leave", class: "warn", "data-t": "Leave the night", text: t("Leave the night") }))),
    el("div", { id: "night-kept", "data-redrawn": "" }));
}

// The games a night allows, ticked by their titles in the page's language rather than typed as the
// table's ids: the table's games as the new-game form offers them (staff.js draws both when they
// change). What was ticked stays ticked; a night allows the table's first game until told otherwise.
export function drawNightGames(games) {
  const box = $("night-games");
  const ticked = new Set([...box.querySelectorAll("input:checked")].map((each) => each.value));
  if (!box.querySelector("input") && games.length) ticked.add(games[0].game);
  box.replaceChildren(el("legend", { "data-t": "Games", text: t("Games") }), ...games.map((game) => el("label", {},
    el("input", { type: "checkbox", name: "night-game", value: game.game, ...(ticked.has(game.game) ? { checked: "" } : {}) }),
    el("span", { text: game.title }))));
}

let night = null;
const HOSTED = "This night is run from the staff page of table {host}: it is shown here, not changed.";
const KEPT_SHOWN = 5;  // the latest nights kept, each with its exports (a closed night is exported from here)

function exportNight(id, kind = "csv") {
  download(`/staff/api/night/${id}.${kind}`, `pi-table-night-${id}.${kind}`);
}

async function printNight(id) {
  const answer = await api("GET", `/staff/api/night/${id}/print`);
  if (answer.ok) window.open(URL.createObjectURL(await answer.response.blob()), "_blank");
}

function drawKept(kept, names) {  // each night by its name (its id where the table could not read it)
  const latest = kept.slice(-KEPT_SHOWN).reverse();
  redraw($("night-kept"), latest, () => [...(latest.length ? [el("h3", { "data-t": "Nights kept", text: t("Nights kept") })] : []),
    ...latest.map((id) => {
      const csv = el("button", { class: "quiet night-csv", "data-night": id, text: t("Export CSV") });
      const trf = el("button", { class: "quiet night-trf", "data-night": id, text: "TRF" });
      const print = el("button", { class: "quiet night-print", "data-night": id, text: t("Print") });
      csv.addEventListener("click", () => exportNight(id));
      trf.addEventListener("click", () => exportNight(id, "trf"));
      print.addEventListener("click", () => printNight(id));
      return el("div", { class: "row" }, el("span", { text: names[id] || id }), csv, trf, print);
    })]);
}

function drawRound(round, proposed) {
  redraw($("night-round"), [round, proposed], () => {
    if (!round) return [];
    const teams = [...round.pairs.flatMap((pair) => [pair.red, pair.blue]), ...round.resting];
    const drawn = [el("h3", { text: `${t("Round {number}", { number: round.number })}${proposed ? " ?" : ""}` })];
    for (const pair of round.pairs) {  // red plays first: it alternates per team, as Swiss systems balance colours
      drawn.push(el("p", { class: "pair" }, `${t("table")} ${pair.table}: ${pair.red}`,
        el("span", { class: "first", text: ` ${t("(red, plays first)")}` }), ` – ${pair.blue}`));
    }
    if (round.resting.length) drawn.push(el("p", { class: "note", text: `${t("sitting out")}: ${round.resting.join(", ")}` }));
    if (!proposed) return drawn;
    const one = el("select", { id: "night-swap-one", "aria-label": t("Swap this team") },
      ...teams.map((name) => el("option", { value: name, text: name })));
    const other = el("select", { id: "night-swap-other", "aria-label": t("with this team") },
      ...teams.map((name) => el("option", { value: name, text: name })));
    const swap = el("button", { id: "night-swap", class: "quiet", "data-t": "Swap", text: t("Swap") });
    swap.addEventListener("click", () => nightAct("swap", { one: one.value, other: other.value }));
    return [...drawn, el("div", { class: "row" }, one, other, swap)];
  });
}

// The nights other tables offer this one (their plans name it): each followed once its code is typed here.
function drawOffers(offers) {
  redraw($("night-offers"), offers, () => [...(offers.length ? [el("h3", { "data-t": "Nights on offer to this table",
    text: t("Nights on offer to this table") })] : []), ...offers.map((offer) => {
    const code = el("input", { id: `night-offer-code-${offer.host}`, class: "night-offer-code", maxlength: "12", autocomplete: "off",
                               "aria-label": t("Code on its host's screen"), placeholder: t("Code on its host's screen") });
    const follow = el("button", { class: "night-accept", "data-host": offer.host, text: t("Follow this night") });
    follow.addEventListener("click", () => nightAct("accept", { host: offer.host, code: code.value }));
    return el("div", { class: "row night-offer" }, el("span", { text: `${t("table")} ${offer.host}: ${offer.name}` }), code, follow);
  })]);
}

// The teams that joined from the phones, each approved or removed by the staff.
function drawWaiting(waiting) {
  redraw($("night-waiting"), waiting, () => [...(waiting.length ? [el("h3", { "data-t": "Waiting for the staff",
    text: t("Waiting for the staff") })] : []), ...waiting.map((team) => {
    const approve = el("button", { class: "night-approve", "data-team": team.name, text: t("Approve") });
    const remove = el("button", { class: "quiet night-refuse", "data-team": team.name, text: t("Remove") });
    approve.addEventListener("click", () => nightAct("approve", { team: team.name }));
    remove.addEventListener("click", () => removeTeam(team.name));
    const nicknames = team.nicknames.length ? ` (${team.nicknames.join(", ")})` : "";
    return el("div", { class: "row night-waiting" }, el("span", { text: team.name + nicknames }), approve, remove);
  })]);
}

// The teams withdrawn: each keeps its results, and comes back with a tap.
function drawWithdrawn(names, hosted) {
  redraw($("night-withdrawn"), [names, hosted], () => names.map((name) => {
    const back = el("button", { class: "quiet night-reinstate", "data-team": name, text: t("Back in") });
    back.addEventListener("click", () => nightAct("reinstate", { team: name }));
    back.hidden = !hosted;
    return el("div", { class: "row night-withdrawn" }, el("span", { text: `${name} (${t("withdrawn")})` }), back);
  }));
}

// A round's result entered or corrected at a table: a win, a forfeit, a double loss, void, a recorded game, or
// back to the table's own; each is written in the night's history with who and when.
function drawResults(data) {
  const box = $("night-results");
  redraw(box, [data.host, data.rounds, data.games_played], () => data.host || !data.rounds.length ? [] : resultsForm(box, data));
}

function resultsForm(box, data) {
  // Drawn again as the night changes: what the staff had chosen stays chosen.
  const was = Object.fromEntries(["table", "", "game"].map((part) => {
    const chosen = box.querySelector(`#night-result${part ? "-" + part : ""}`);
    return [part || "result", chosen ? chosen.value : null];
  }));
  const keep = (select, value) => { if (value !== null && [...select.options].some((o) => o.value === value)) select.value = value; };
  const kept = box.querySelector("#night-result-round");
  const round = el("select", { id: "night-result-round", "aria-label": t("Round") },
    ...data.rounds.map((made) => el("option", { value: String(made.number), text: t("Round {number}", { number: made.number }) })));
  round.value = kept && data.rounds.some((made) => String(made.number) === kept.value) ? kept.value : String(data.rounds.length);
  const table = el("select", { id: "night-result-table", "aria-label": t("table") });
  const result = el("select", { id: "night-result", "aria-label": t("Result") });
  const game = el("select", { id: "night-result-game", "aria-label": t("this recorded game:") },
    ...data.games_played.filter((g) => g.teams.length === 2).map((g) =>
      el("option", { value: g.id, text: `${t("Round {number}", { number: g.round })}, ${t("table")} ${g.table}: ${g.teams.join(" – ")}` })));
  function choices() {
    const made = data.rounds[Number(round.value) - 1];
    table.replaceChildren(...made.pairs.map((pair) => el("option", { value: pair.table, text: `${t("table")} ${pair.table}: ${pair.red} – ${pair.blue}` })));
    pairChoices();
  }
  function pairChoices() {
    const pair = data.rounds[Number(round.value) - 1].pairs.find((p) => p.table === table.value);
    if (!pair) return;
    result.replaceChildren(
      ...[pair.red, pair.blue].map((team) => el("option", { value: `won:${team}`, text: t("{team} won", { team }) })),
      ...[pair.red, pair.blue].map((team) => el("option", { value: `forfeit:${team}`, text: t("{team} won by forfeit", { team }) })),
      el("option", { value: "double-loss", text: t("double loss (both lose)") }),
      el("option", { value: "void", text: t("void (counts for nothing)") }),
      el("option", { value: "game", text: t("this recorded game:") }),
      el("option", { value: "table", text: t("back to the table's own game") }));
  }
  round.addEventListener("change", choices);
  table.addEventListener("change", pairChoices);
  const save = el("button", { id: "night-result-save", class: "quiet", text: t("Save the result") });
  save.addEventListener("click", () => {
    const [kind, winner] = result.value.split(/:(.*)/s);
    nightAct("result", { round: Number(round.value), table: table.value, result: kind, winner: winner || null,
                         game: kind === "game" ? game.value : null });
  });
  choices();
  keep(table, was.table);
  pairChoices();
  keep(result, was.result);
  keep(game, was.game);
  return [el("h3", { "data-t": "Results", text: t("Results") }),
    el("div", { class: "row" }, round, table), el("div", { class: "row" }, result, game, save)];
}

function drawHistory(history) {
  const when = (at) => new Date(at * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  const said = (entry) => entry.event === "result"
    ? `${t("Round {number}", { number: entry.round })}, ${t("table")} ${entry.table}: ${entry.result}${entry.winner ? ` (${entry.winner})` : ""}${entry.game ? ` ${entry.game}` : ""}`
    : `${entry.team}: ${entry.event === "withdraw" ? t("withdrawn") : t("Back in")}`;
  redraw($("night-history"), history, () => [...(history.length ? [el("h3", { "data-t": "History", text: t("History") })] : []),
    ...history.slice().reverse().map((entry) => el("p", { class: "note night-history", text: `${when(entry.at)} · ${entry.by} · ${said(entry)}` }))]);
}

function removeTeam(name) {
  if (confirm(t("Remove the team {team} from the night?", { team: name }))) nightAct("remove", { team: name });
}

function drawNight(data) {
  night = data.night;
  $("night-open").hidden = !!night;
  $("night-open-desk").hidden = !night;
  $("night-host").hidden = true;
  $("night-state").textContent = night ? night.name : t("no night is open");
  drawKept(data.kept, data.kept_names || {});
  drawOffers(data.offers || []);
  $("night-code").hidden = !(night && night.code);
  $("night-code").textContent = night && night.code ? t("Code for the other tables: {code}", { code: night.code }) : "";
  if (!night) return;
  $("night-teams").textContent = `${t("Teams")}: ${night.teams.map((team) => team.name).join(", ")}`;
  drawWaiting(night.host ? [] : night.waiting);
  const playing = night.teams.map((team) => team.name).filter((name) => !night.withdrawn.includes(name));
  redraw($("night-remove-team"), playing, () => playing.map((name) => el("option", { value: name, text: name })));
  $("night-remove-row").hidden = !!night.host || !playing.length;
  drawWithdrawn(night.withdrawn, !night.host);
  const last = night.rounds[night.rounds.length - 1];
  const still = last ? night.still_played[String(last.number)] : null;
  $("night-still").textContent = still ? t("Still played: round {number} at table {tables}", { number: last.number, tables: still.join(", ") }) : "";
  drawResults(night);
  drawHistory(night.history);
  drawRound(night.proposal || night.rounds[night.rounds.length - 1], !!night.proposal);
  $("night-confirm").disabled = !night.proposal;
  // A night followed from its host's plan is shown here, run there.
  $("night-host").hidden = !night.host;
  $("night-host").textContent = night.host ? t(HOSTED, { host: night.host }) : "";
  for (const id of ["night-join", "night-propose", "night-confirm", "night-close"]) $(id).hidden = !!night.host;
  $("night-leave").hidden = !night.host;
  // Every standings page names the tie-break the night uses.
  $("night-tiebreak-used").textContent = t("Tie-break: {tiebreak}", { tiebreak: t(night.tiebreak === "buchholz"
    ? "Buchholz (the points of the teams met), then rating" : "rating, then margin") });
  const columns = ["played", "won", "lost", "byes", "points", "margin", "rating", ...(night.tiebreak === "buchholz" ? ["buchholz"] : [])];
  const heads = { buchholz: "Buchholz" };
  redraw($("night-standings"), [columns, night.standings], () => [
    el("tr", {}, el("th", { text: t("Team") }), ...columns.map((name) => el("th", { text: t(heads[name] || name) }))),
    ...night.standings.map((line, place) => el("tr", { class: "standing" },
      el("td", { text: `${place + 1}. ${line.team}${line.withdrawn ? ` (${t("withdrawn")})` : ""}` }),
      ...columns.map((name) => el("td", { text: String(line[name]) }))))]);
}

export async function loadNight(background = false) {
  const answer = await api("GET", "/staff/api/night", undefined, background);
  if (answer.ok) drawNight(answer.data);
}

async function nightAct(what, body = {}) {
  const answer = await api("POST", `/staff/api/night/${what}`, body);
  if (answer.ok) { say(""); drawNight(answer.data); } else if (answer.status !== 401) say(answer.data ? answer.data.error : `HTTP ${answer.status}`, true);
  return answer.ok;
}

export function wireNight() {
  $("desk").append(nightSection());
  const words = (id) => $(id).value.split(/[\s,]+/).filter(Boolean);
  $("night-open").addEventListener("submit", (event) => {
    event.preventDefault();
    const games = [...document.querySelectorAll("input[name=night-game]:checked")].map((box) => box.value);
    nightAct("open", { name: $("night-name").value, games, tables: words("night-tables"),
                       bye: Number($("night-bye").value), tiebreak: $("night-tiebreak").value });
  });
  $("night-join").addEventListener("submit", async (event) => {
    event.preventDefault();
    const nicknames = $("night-nicknames").value.split(",").map((nick) => nick.trim()).filter(Boolean);
    if (await nightAct("join", { team: $("night-team").value, nicknames })) { $("night-team").value = ""; $("night-nicknames").value = ""; }
  });
  $("night-propose").addEventListener("click", () => nightAct("propose"));
  // Asked before a round is confirmed over one still played: those games count for their own round.
  $("night-confirm").addEventListener("click", () => {
    const last = night && night.rounds[night.rounds.length - 1];
    const still = last ? night.still_played[String(last.number)] : null;
    if (!still) { nightAct("confirm"); return; }
    if (confirm(t("Round {number} is still played at table {tables}. Confirm round {next} anyway? Those games count for round {number} when they end.",
                  { number: last.number, tables: still.join(", "), next: last.number + 1 }))) nightAct("confirm", { over: true });
  });
  $("night-withdraw").addEventListener("click", () => {
    const name = $("night-remove-team").value;
    if (name && confirm(t("Withdraw the team {team}? It keeps its results and is paired no more.", { team: name }))) nightAct("withdraw", { team: name });
  });
  $("night-close").addEventListener("click", () => {
    if (confirm(t("Close the night? Its games stay kept, and it can be exported."))) nightAct("close");
  });
  $("night-leave").addEventListener("click", () => {
    if (confirm(t("Leave the night? Its games played here stay kept, and its host's night goes on."))) nightAct("leave");
  });
  $("night-remove").addEventListener("click", () => { if ($("night-remove-team").value) removeTeam($("night-remove-team").value); });
  $("night-csv").addEventListener("click", () => night && exportNight(night.id));
  $("night-trf").addEventListener("click", () => night && exportNight(night.id, "trf"));
  $("night-print").addEventListener("click", () => night && printNight(night.id));
  setInterval(() => { if (csrf && !$("desk").hidden) loadNight(true); }, 5000);
  // The night as soon as the desk shows (a sign-in), not at the next tick; never before the session
  // is read (a fresh page would be told to log in before it was asked anything).
  new MutationObserver(() => { if (csrf && !$("desk").hidden) loadNight(true); })
    .observe($("desk"), { attributes: true, attributeFilter: ["hidden"] });
}
