// The game night on the staff page (after staff.js, whose api(), t(), el(), say() and download() it uses):
// open a night (with the points of a bye and its tie-break), add teams and approve or remove those from the
// phones, withdraw a team and bring it back, propose, swap and confirm rounds (asked first over a round still
// played), enter and correct results, the standings and the night's history, close and export (CSV, TRF);
// follow a night another table offers (with its code) and leave it. The page reads the night every 5 s:
// each part is drawn again only when what it shows changed (staff.js's redraw), so a refresh never moves
// the keyboard's focus nor takes back a choice being made. A section's script (web/sections/night.py).
import { $, api, csrf, download, el, formField, label, number, redraw, say, section, t, when, worded } from "./staff.js";

function nightSection() {
  return el("section", { id: "night-section" },
    worded("h2", "Game night"),
    el("p", { id: "night-state", class: "note" }),
    el("p", { id: "night-host", class: "note", hidden: "" }),
    el("p", { id: "night-code", hidden: "" }),
    el("div", { id: "night-offers", "data-redrawn": "" }),
    el("form", { id: "night-open", class: "stack" },
      ...formField("night-name", "Night's name", { maxlength: "40", required: "" }),
      el("fieldset", { id: "night-games", class: "games" }, worded("legend", "Games")),
      ...formField("night-tables", "Tables (their names, separated by spaces)", { value: "1" }),
      label("night-bye", "A bye (a round sat out) scores"),
      el("select", { id: "night-bye" },
        worded("option", "a win (1 point)", { value: "1" }),
        worded("option", "a draw (½ point)", { value: "0.5" }),
        worded("option", "nothing (0 points)", { value: "0" })),
      label("night-late", "A round a team missed by joining late scores"),
      el("select", { id: "night-late" },
        worded("option", "nothing (0 points)", { value: "0" }),
        worded("option", "a draw (½ point)", { value: "0.5" })),
      label("night-seeding", "Round 1"),
      el("select", { id: "night-seeding" },
        worded("option", "drawn by lot", { value: "draw" }),
        worded("option", "seeded by the ratings of earlier nights", { value: "ratings" })),
      el("fieldset", { id: "night-tiebreaks" },
        worded("legend", "Tie-breaks after points, in order"),
        ...TIEBREAK_PICKS.map((id, n) => el("select", { id, ...(n ? { "aria-label": t("then"), "data-t-label": "then" }
          : { "aria-label": t("Tie-break after points"), "data-t-label": "Tie-break after points" }) },
          ...(n ? [worded("option", "none", { value: "" })] : [])))),
      worded("button", "Open the night", { type: "submit" })),
    el("div", { id: "night-open-desk", hidden: "" },
      el("form", { id: "night-join", class: "stack" },
        ...formField("night-team", "Team", { maxlength: "24", required: "" }),
        ...formField("night-nicknames", "Nicknames (optional, separated by commas)"),
        ...formField("night-team-code", "League code (optional)", { maxlength: "12", list: "night-team-codes", autocapitalize: "characters" }),
        el("datalist", { id: "night-team-codes" }),
        worded("button", "Add the team", { type: "submit" })),
      el("p", { id: "night-teams" }),
      el("div", { id: "night-remove-row", class: "row", hidden: "" },
        el("select", { id: "night-remove-team", "aria-label": t("Team"), "data-t-label": "Team" }),
        worded("button", "Remove", { id: "night-remove", class: "quiet" }),
        worded("button", "Withdraw", { id: "night-withdraw", class: "quiet" }),
        el("input", { id: "night-rename-to", maxlength: "24", size: "12", "aria-label": t("New name"), "data-t-label": "New name" }),
        worded("button", "Rename", { id: "night-rename", class: "quiet" }),
        worded("button", "Bye next round", { id: "night-rest", class: "quiet" }),
        el("input", { id: "night-rest-rounds", inputmode: "numeric", size: "6", "aria-label": t("Rounds to sit out, as 4-5"),
                      "data-t-label": "Rounds to sit out, as 4-5", placeholder: "4-5" }),
        worded("button", "Bye in those rounds", { id: "night-rest-later", class: "quiet" }),
        el("select", { id: "night-rest-points", "aria-label": t("A bye asked for scores"), "data-t-label": "A bye asked for scores" },
          worded("option", "what a round missed scores", { value: "" }),
          worded("option", "a draw (½ point)", { value: "0.5" }),
          worded("option", "nothing (0 points)", { value: "0" }))),
      el("div", { id: "night-apart-row", class: "row", hidden: "" },
        el("select", { id: "night-apart-one", "aria-label": t("Keep this team"), "data-t-label": "Keep this team" }),
        el("select", { id: "night-apart-other", "aria-label": t("apart from this team"), "data-t-label": "apart from this team" }),
        worded("button", "Keep apart", { id: "night-apart", class: "quiet" })),
      el("div", { id: "night-apart-list", "data-redrawn": "" }),
      el("div", { id: "night-withdrawn", "data-redrawn": "" }),
      el("div", { id: "night-rests", "data-redrawn": "" }),
      el("div", { id: "night-waiting", "data-redrawn": "" }),
      el("div", { class: "row" },
        worded("button", "Propose the next round", { id: "night-propose" }),
        worded("button", "Confirm the round", { id: "night-confirm" }),
        el("button", { id: "night-unconfirm", class: "quiet", hidden: "" }),
        worded("button", "Print the pairing slips", { id: "night-slips", class: "quiet", hidden: "" })),
      el("div", { id: "night-round", "data-redrawn": "" }),
      el("div", { id: "night-warnings", "data-redrawn": "" }),
      el("p", { id: "night-draw", class: "note" }),
      el("p", { id: "night-still", class: "note" }),
      el("div", { id: "night-free", "data-redrawn": "" }),
      el("div", { id: "night-results", "data-redrawn": "" }),
      worded("h3", "Standings"),
      el("p", { id: "night-tiebreak-used", class: "note" }),
      el("div", { class: "scroll", tabindex: "0", role: "region", "aria-label": t("Standings"), "data-t-label": "Standings" },
        el("table", { id: "night-standings", class: "history" })),
      el("div", { id: "night-history" }),
      el("div", { class: "row" },
        worded("button", "Export for a spreadsheet (xlsx)", { id: "night-xlsx", class: "quiet" }),
        worded("button", "Export CSV: standings", { id: "night-csv", class: "quiet" }),
        worded("button", "CSV: rounds", { id: "night-csv-rounds", class: "quiet" }),
        worded("button", "CSV: games", { id: "night-csv-games", class: "quiet" }),
        worded("button", "Export for a tournament program (TRF)", { id: "night-trf", class: "quiet" }),
        worded("button", "Print", { id: "night-print", class: "quiet" }),
        worded("button", "Close the night", { id: "night-close", class: "warn" }),
        worded("button", "Leave the night", { id: "night-leave", class: "warn" }))),
    el("div", { id: "night-kept", "data-redrawn": "" }),
    el("div", { id: "night-correct" }));
}

// The games a night allows, ticked by their titles in the page's language rather than typed as the
// table's ids: the table's games as the new-game form offers them (staff.js draws both when they
// change). What was ticked stays ticked; a night allows the table's first game until told otherwise.
function drawNightGames(games) {
  const box = $("night-games");
  const ticked = new Set([...box.querySelectorAll("input:checked")].map((each) => each.value));
  if (!box.querySelector("input") && games.length) ticked.add(games[0].game);
  box.replaceChildren(worded("legend", "Games"), ...games.map((game) => el("label", {},
    el("input", { type: "checkbox", name: "night-game", value: game.game, ...(ticked.has(game.game) ? { checked: "" } : {}) }),
    el("span", { text: game.title }))));
}

let night = null;
const HOSTED = "This night is run from the staff page of table {host}: it is shown here, not changed.";
// The tie-breaks a night may order come with the night's answer ("tiebreaks": each its name and words), from the
// table's one list of them (pi_table/night/scoring.py); an open night's say its words and the columns they add.
const TIEBREAK_PICKS = ["night-tiebreak", "night-tiebreak-2", "night-tiebreak-3", "night-tiebreak-4"];  // the first, then up to three more
const KEPT_SHOWN = 5;  // the latest nights kept, each with its exports (a closed night is exported from here)

// A night's export: ``kind`` trf or xlsx, or one of its tables as a CSV of its own (in the page's language).
function exportNight(id, kind) {
  const table = ["standings", "rounds", "games"].includes(kind);
  download(table ? `/staff/api/night/${id}/${kind}.csv` : `/staff/api/night/${id}.${kind}`,
           table ? `pi-table-night-${id}-${kind}.csv` : `pi-table-night-${id}.${kind}`);
}

// The night to print, or ``round``'s pairing slips (a slip a table).
async function printNight(id, round = null) {
  const answer = await api("GET", `/staff/api/night/${id}/print${round ? `?round=${round}` : ""}`);
  if (answer.ok) window.open(URL.createObjectURL(await answer.response.blob()), "_blank");
}

// Each night kept with its exports: every button names the night it acts on (its name and when it opened).
function drawKept(kept, names = {}) {
  const latest = kept.slice(-KEPT_SHOWN).reverse();
  redraw($("night-kept"), [latest, names], () => [...(latest.length ? [worded("h3", "Nights kept")] : []),
    ...latest.map((id) => {
      const called = names[id] ? `${names[id]} (${id})` : id;
      const xlsx = el("button", { class: "quiet night-xlsx", "data-night": id, text: "xlsx",
                                  "aria-label": t("xlsx: export the night {night} for a spreadsheet", { night: called }) });
      const csv = el("button", { class: "quiet night-csv", "data-night": id, text: t("Export CSV"),
                                 "aria-label": t("Export CSV of the night {night}", { night: called }) });
      const trf = el("button", { class: "quiet night-trf", "data-night": id, text: "TRF",
                                 "aria-label": t("Export TRF of the night {night}", { night: called }) });
      const print = el("button", { class: "quiet night-print", "data-night": id, text: t("Print"),
                                   "aria-label": t("Print the night {night}", { night: called }) });
      const correct = el("button", { class: "quiet night-correct", "data-night": id, text: t("Correct a result"),
                                     "aria-label": t("Correct a result of the night {night}", { night: called }) });
      xlsx.addEventListener("click", () => exportNight(id, "xlsx"));
      csv.addEventListener("click", () => exportNight(id, "standings"));
      trf.addEventListener("click", () => exportNight(id, "trf"));
      print.addEventListener("click", () => printNight(id));
      correct.addEventListener("click", () => correctNight(id));
      return el("div", { class: "row" }, el("span", { text: called }), xlsx, csv, trf, print, correct);
    })]);
}

// A closed night's result entered or corrected: its rounds read back, the same form as the open night's.
async function correctNight(id) {
  const answer = await api("GET", `/staff/api/night/${id}/kept`);
  if (!answer.ok) return;
  const box = $("night-correct");
  const draw = (kept) => {
    if (!kept.rounds.length || kept.host) { box.replaceChildren(); return; }
    box.replaceChildren(el("h3", { text: `${t("Correct a result")}: ${kept.name}` }),
      ...resultsForm(box, kept, "night-correct-result", async (body) => {
        const saved = await api("POST", `/staff/api/night/${id}/result`, body);
        if (saved.ok) { say(t("Saved and applied.")); draw(saved.data.night); } else if (saved.status !== 401) say(saved.data ? saved.data.error : `HTTP ${saved.status}`, true);
      }));
  };
  draw(answer.data.night);
}

function drawRound(round, proposed) {
  redraw($("night-round"), [round, proposed], () => {
    if (!round) return [];
    const teams = [...round.pairs.flatMap((pair) => [pair.red, pair.blue]), ...round.resting];
    const drawn = [el("h3", { text: t(proposed ? "Round {number}, proposed: not confirmed yet" : "Round {number}", { number: round.number }) })];
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
    const swap = worded("button", "Swap", { id: "night-swap", class: "quiet" });
    swap.addEventListener("click", () => nightAct("swap", { one: one.value, other: other.value }));
    return [...drawn, el("div", { class: "row" }, one, other, swap), byHand(round, teams)];
  });
}

// The round paired by hand, whole: a red and a blue team for each table of the night; the teams not chosen sit out.
function byHand(round, teams) {
  const chosen = (table, colour) => { const pair = round.pairs.find((p) => p.table === table); return pair ? pair[colour] : ""; };
  const rows = night.tables.map((table) => {
    const pick = (colour, named) => {
      const select = el("select", { class: `night-hand-${colour}`, "data-table": table, "aria-label": t(named, { table }) },
        el("option", { value: "", text: "–" }), ...teams.map((name) => el("option", { value: name, text: name })));
      select.value = chosen(table, colour);
      return select;
    };
    return el("div", { class: "row" }, el("span", { text: `${t("table")} ${table}` }), pick("red", "red at table {table}"),
      pick("blue", "blue at table {table}"));
  });
  const save = el("button", { id: "night-hand-save", class: "quiet", text: t("Save the pairs") });
  save.addEventListener("click", () => {
    const pairs = rows.map((row) => ({ table: row.querySelector(".night-hand-red").dataset.table,
      red: row.querySelector(".night-hand-red").value, blue: row.querySelector(".night-hand-blue").value }))
      .filter((pair) => pair.red || pair.blue);
    const seated = new Set(pairs.flatMap((pair) => [pair.red, pair.blue]));
    nightAct("pair", { pairs, resting: teams.filter((name) => !seated.has(name)) });
  });
  return el("details", { id: "night-hand" }, el("summary", { text: t("Pair the round by hand") }), ...rows, save);
}

// What a director is warned of in the round proposed: two teams kept apart paired (no other pairing was possible,
// or by hand), a rematch, a team given the colour it is not due.
function drawWarnings(warned) {
  redraw($("night-warnings"), warned, () => warned.map((w) => el("p", { class: "note night-warning", text: w.kind === "apart"
    ? t("Table {table}: {one} and {other} are kept apart, and no other pairing was possible", { table: w.table, one: w.teams[0], other: w.teams[1] })
    : w.kind === "rematch"
    ? t("Table {table}: {one} and {other} have met before", { table: w.table, one: w.teams[0], other: w.teams[1] })
    : t(w.due === "red" ? "Table {table}: {team} is due to play red" : "Table {table}: {team} is due to play blue",
        { table: w.table, team: w.team }) })));
}

// The nights other tables offer this one (their plans name it): each followed once its code is typed here.
function drawOffers(offers) {
  redraw($("night-offers"), offers, () => [...(offers.length ? [worded("h3", "Nights on offer to this table")] : []), ...offers.map((offer) => {
    const code = el("input", { id: `night-offer-code-${offer.host}`, class: "night-offer-code", maxlength: "12", autocomplete: "off",
                               "aria-label": t("Code on its host's screen"), placeholder: t("Code on its host's screen") });
    const follow = el("button", { class: "night-accept", "data-host": offer.host, text: t("Follow this night"),
                                  "aria-label": t("Follow this night: {night}, of table {table}", { night: offer.name, table: offer.host }) });
    follow.addEventListener("click", () => nightAct("accept", { host: offer.host, code: code.value }));
    return el("div", { class: "row night-offer" }, el("span", { text: `${t("table")} ${offer.host}: ${offer.name}` }), code, follow);
  })]);
}

// The teams that joined from the phones, each approved or removed by the staff.
function drawWaiting(waiting) {
  redraw($("night-waiting"), waiting, () => [...(waiting.length ? [worded("h3", "Waiting for the staff")] : []), ...waiting.map((team) => {
    const approve = el("button", { class: "night-approve", "data-team": team.name, text: t("Approve"),
                                   "aria-label": t("Approve the team {team}", { team: team.name }) });
    const remove = el("button", { class: "quiet night-refuse", "data-team": team.name, text: t("Remove"),
                                  "aria-label": t("Remove the team {team}", { team: team.name }) });
    approve.addEventListener("click", () => nightAct("approve", { team: team.name }));
    remove.addEventListener("click", () => removeTeam(team.name));
    const nicknames = team.nicknames.length ? ` (${team.nicknames.join(", ")})` : "";
    return el("div", { class: "row night-waiting" }, el("span", { text: team.name + nicknames }), approve, remove);
  })]);
}

// The pairs of teams kept apart (friends who came together): each paired as any others again with a tap.
function drawApart(pairs, hosted) {
  redraw($("night-apart-list"), [pairs, hosted], () => pairs.map(([one, other]) => {
    const said = el("span", { text: t("{one} and {other} are kept apart", { one, other }) });
    if (!hosted) return el("div", { class: "row night-apart" }, said);
    const back = el("button", { class: "quiet night-unapart", text: t("Pair them again"),
                                "aria-label": t("Pair {one} and {other} again", { one, other }) });
    back.addEventListener("click", () => nightAct("unapart", { teams: [one, other] }));
    return el("div", { class: "row night-apart" }, said, back);
  }));
}

// The teams withdrawn: each keeps its results, and comes back with a tap.
function drawWithdrawn(names, hosted) {
  redraw($("night-withdrawn"), [names, hosted], () => names.map((name) => {
    const back = el("button", { class: "quiet night-reinstate", "data-team": name, text: t("Back in"),
                                "aria-label": t("Back in: the team {team}", { team: name }) });
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

// ``prefix`` names its fields (the open night's, or a kept night's being corrected); ``save`` sends a result.
function resultsForm(box, data, prefix = "night-result", save = (body) => nightAct("result", body)) {
  // Drawn again as the night changes: what the staff had chosen stays chosen.
  const was = Object.fromEntries(["table", "", "game"].map((part) => {
    const chosen = box.querySelector(`#${prefix}${part ? "-" + part : ""}`);
    return [part || "result", chosen ? chosen.value : null];
  }));
  const keep = (select, value) => { if (value !== null && [...select.options].some((o) => o.value === value)) select.value = value; };
  const kept = box.querySelector(`#${prefix}-round`);
  const round = el("select", { id: `${prefix}-round`, "aria-label": t("Round") },
    ...data.rounds.map((made) => el("option", { value: String(made.number), text: t("Round {number}", { number: made.number }) })));
  round.value = kept && data.rounds.some((made) => String(made.number) === kept.value) ? kept.value : String(data.rounds.length);
  const table = el("select", { id: `${prefix}-table`, "aria-label": t("table") });
  const result = el("select", { id: prefix, "aria-label": t("Result") });
  const game = el("select", { id: `${prefix}-game`, "aria-label": t("this recorded game:") },
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
  const saving = el("button", { id: `${prefix}-save`, class: "quiet", text: t("Save the result") });
  saving.addEventListener("click", () => {
    const [kind, winner] = result.value.split(/:(.*)/s);
    save({ round: Number(round.value), table: table.value, result: kind, winner: winner || null,
           game: kind === "game" ? game.value : null });
  });
  choices();
  keep(table, was.table);
  pairChoices();
  keep(result, was.result);
  keep(game, was.game);
  return [worded("h3", "Results"),
    el("div", { class: "row" }, round, table), el("div", { class: "row" }, result, game, saving)];
}

// A result in the night's history, by its code (pi_table/night/book.py's RESULTS), in words.
const RESULT_SAID = { won: "won ({team})", forfeit: "won by forfeit ({team})", "double-loss": "both lost",
  void: "void (counts for nothing)", game: "a recorded game ({game})", table: "back to the table's own game" };

function drawHistory(history) {
  const time = (at) => when(new Date(at * 1000), { hour: "2-digit", minute: "2-digit" });
  const said = (entry) => entry.event === "result"
    ? `${t("Round {number}", { number: entry.round })}, ${t("table")} ${entry.table}: ${t(RESULT_SAID[entry.result] || entry.result, { team: entry.winner, game: entry.game })}`
    : entry.event === "unconfirm" ? t("Round {number} undone", { number: entry.round })
    : entry.event === "rename" ? t("{team} renamed {name}", { team: entry.team, name: entry.to })
    : entry.event === "apart" ? t("{one} and {other} are kept apart", { one: entry.teams[0], other: entry.teams[1] })
    : entry.event === "unapart" ? t("{one} and {other} may be paired again", { one: entry.teams[0], other: entry.teams[1] })
    : `${entry.team}: ${entry.event === "withdraw" ? t("withdrawn") : t("Back in")}`;
  redraw($("night-history"), history, () => [...(history.length ? [worded("h3", "History")] : []),
    ...history.slice().reverse().map((entry) => el("p", { class: "note night-history", text: `${time(entry.at)} · ${entry.by} · ${said(entry)}` }))]);
}

// A customers' game under way at the table when the night opened, was accepted or a round was confirmed: free
// play, never a round's. The staff end it, or let it finish before the round's pair sits down.
const finishing = new Set();  // the games the staff let finish: said, not asked again

function drawFreePlay(free) {
  redraw($("night-free"), [free, [...finishing]], () => free.map((entry) => {
    const said = el("p", { class: "note night-free", text: t("A game not of the night is under way at table {table}: it is free play, and the round's pair plays its own game there after it.", { table: entry.table }) });
    if (finishing.has(entry.game) || !entry.here) return said;  // another table's: ended on its own staff page
    const end = el("button", { class: "warn night-free-end", text: t("End the game at table {table}", { table: entry.table }) });
    const finish = el("button", { class: "quiet night-free-finish", text: t("Let the game at table {table} finish", { table: entry.table }) });
    end.addEventListener("click", async () => {
      if (!confirm(t("End the game on the table? It stays in the history, unfinished."))) return;
      const answer = await api("POST", "/staff/api/end-game");
      if (answer.ok) loadNight(); else if (answer.status !== 401) say(answer.data ? answer.data.error : `HTTP ${answer.status}`, true);
    });
    finish.addEventListener("click", () => { finishing.add(entry.game); drawFreePlay(free); });
    return el("div", { class: "night-free" }, said, el("div", { class: "row" }, end, finish));
  }));
}

// The byes teams asked for the rounds to come, round by round: each taken back with a tap.
function drawRests(data) {
  const coming = Object.entries(data.rests || {}).filter(([round]) => Number(round) > data.rounds.length)
    .sort(([one], [other]) => Number(one) - Number(other));
  redraw($("night-rests"), [coming, data.host], () => coming.flatMap(([round, asked]) => [
    el("p", { class: "note", text: t("Asked for a bye in round {number}: {teams}", { number: round, teams: asked.join(", ") }) }),
    ...(data.host ? [] : asked.map((name) => {
      const back = el("button", { class: "quiet night-unrest", "data-team": name, "data-round": round,
                                  text: t("Take back the bye of {team} in round {number}", { team: name, number: round }) });
      back.addEventListener("click", () => nightAct("unrest", { team: name, round: Number(round) }));
      return back;
    }))]));
}

// "4-5" or "4, 6": the rounds a team asks to sit out; null when that is not what was typed.
function roundsTyped(text) {
  const rounds = [];
  for (const part of text.split(",").map((one) => one.trim()).filter(Boolean)) {
    const match = /^(\d+)(?:\s*-\s*(\d+))?$/.exec(part);
    if (!match) return null;
    const first = Number(match[1]), last = Number(match[2] || match[1]);
    if (last < first || last - first > 100) return null;
    for (let round = first; round <= last; round++) rounds.push(round);
  }
  return rounds.length ? rounds : null;
}

function removeTeam(name) {
  if (confirm(t("Remove the team {team} from the night?", { team: name }))) nightAct("remove", { team: name });
}

function drawTiebreakChoices(choices) {
  // The tie-breaks offered, once (a choice being made stays made): the first pick has no "none".
  for (const id of TIEBREAK_PICKS) {
    const pick = $(id);
    if (pick.querySelector("option:not([value=''])")) continue;
    pick.append(...choices.map(([value, words]) => worded("option", words, { value })));
  }
}

function drawNight(data) {
  night = data.night;
  $("night-open").hidden = !!night;
  $("night-open-desk").hidden = !night;
  $("night-host").hidden = true;
  $("night-state").textContent = night ? night.name : t("no night is open");
  drawKept(data.kept, data.kept_names || {});
  drawOffers(data.offers || []);
  // The league's teams, as its season came down (issue 64): the director picks a team's code from them.
  $("night-team-codes").replaceChildren(...(data.league_teams || []).map(
    (line) => el("option", { value: line.code, label: line.team })));
  drawTiebreakChoices(data.tiebreaks);
  $("night-code").hidden = !(night && night.code);
  $("night-code").textContent = night && night.code ? t("Code for the other tables: {code}", { code: night.code }) : "";
  if (!night) return;
  $("night-teams").textContent = `${t("Teams")}: ${night.teams.map((team) => team.since
    ? t("{team} (from round {number})", { team: team.name, number: team.since + 1 }) : team.name).join(", ")}`;
  drawWaiting(night.host ? [] : night.waiting);
  const playing = night.teams.map((team) => team.name).filter((name) => !night.withdrawn.includes(name));
  redraw($("night-remove-team"), playing, () => playing.map((name) => el("option", { value: name, text: name })));
  $("night-remove-row").hidden = !!night.host || !playing.length;
  drawWithdrawn(night.withdrawn, !night.host);
  const everyTeam = night.teams.map((team) => team.name);
  for (const id of ["night-apart-one", "night-apart-other"]) {
    redraw($(id), everyTeam, () => everyTeam.map((name) => el("option", { value: name, text: name })));
  }
  $("night-apart-row").hidden = !!night.host || everyTeam.length < 2;
  drawApart(night.apart || [], !night.host);
  drawRests(night);
  const last = night.rounds[night.rounds.length - 1];
  const still = last ? night.still_played[String(last.number)] : null;
  $("night-still").textContent = still ? t("Still played: round {number} at table {tables}", { number: last.number, tables: still.join(", ") }) : "";
  drawFreePlay(night.free_play || []);
  drawResults(night);
  drawHistory(night.history);
  drawRound(night.proposal || night.rounds[night.rounds.length - 1], !!night.proposal);
  drawWarnings(night.warnings || []);
  // Round 1's order, all teams level: by lot from the night's seed (the same book draws the same), or earlier ratings.
  $("night-draw").textContent = night.draw && !night.rounds.length ? t(night.seeding === "ratings"
    ? "Round 1 is seeded by the ratings of the café's earlier nights, then by lot (draw {draw})."
    : "Round 1 is drawn by lot (draw {draw}).", { draw: night.draw }) : "";
  $("night-confirm").disabled = !night.proposal;
  // The last round confirmed by mistake goes back to a proposal while none of its games began (the host says).
  $("night-unconfirm").hidden = !!night.host || !last || !!night.proposal;
  $("night-unconfirm").textContent = last ? t("Undo round {number}", { number: last.number }) : "";
  $("night-slips").hidden = !last;
  // A night followed from its host's plan is shown here, run there.
  $("night-host").hidden = !night.host;
  $("night-host").textContent = night.host ? t(HOSTED, { host: night.host }) : "";
  for (const id of ["night-join", "night-propose", "night-confirm", "night-close"]) $(id).hidden = !!night.host;
  $("night-leave").hidden = !night.host;
  // Every standings page names the tie-breaks the night uses, in its order, and shows their columns.
  $("night-tiebreak-used").textContent = t("Tie-break: {tiebreak}", { tiebreak: night.tiebreaks.words.map((said) => t(said)).join(", ") });
  const shown = "played won lost byes points margin rating".split(" ");
  const columns = [...shown.map((name) => [name, name]), ...night.tiebreaks.columns.filter(([, field]) => !shown.includes(field))];
  redraw($("night-standings"), [columns, night.standings], () => [
    el("tr", {}, el("th", { text: t("Team") }), ...columns.map(([name]) => el("th", { text: t(name) }))),
    ...night.standings.map((line) => el("tr", { class: "standing" },
      el("td", { text: `${line.shared ? `${line.place}=` : `${line.place}.`} ${line.team}${line.withdrawn ? ` (${t("withdrawn")})` : ""}` }),
      ...columns.map(([, field]) => el("td", { text: number(line[field]) }))))]);
}

// Exported: tests/test_a11y.py runs the page's own refreshes on demand; no script imports it.
export async function loadNight(background = false) {
  const answer = await api("GET", "/staff/api/night", undefined, background);
  if (answer.ok) drawNight(answer.data);
}

async function nightAct(what, body = {}) {
  const answer = await api("POST", `/staff/api/night/${what}`, body);
  if (answer.ok) { say(""); drawNight(answer.data); } else if (answer.status !== 401) say(answer.data ? answer.data.error : `HTTP ${answer.status}`, true);
  return answer.ok;
}

function wireNight() {
  $("desk").append(nightSection());
  const words = (id) => $(id).value.split(/[\s,]+/).filter(Boolean);
  $("night-open").addEventListener("submit", (event) => {
    event.preventDefault();
    const games = [...document.querySelectorAll("input[name=night-game]:checked")].map((box) => box.value);
    nightAct("open", { name: $("night-name").value, games, tables: words("night-tables"),
                       bye: Number($("night-bye").value),
                       tiebreak: TIEBREAK_PICKS.map((id) => $(id).value).filter(Boolean).join(","),
                       late: Number($("night-late").value), seeding: $("night-seeding").value });
  });
  $("night-join").addEventListener("submit", async (event) => {
    event.preventDefault();
    const nicknames = $("night-nicknames").value.split(",").map((nick) => nick.trim()).filter(Boolean);
    const code = $("night-team-code").value.trim();
    if (await nightAct("join", { team: $("night-team").value, nicknames, ...(code ? { code } : {}) })) {
      for (const id of ["night-team", "night-nicknames", "night-team-code"]) $(id).value = "";
    }
  });
  $("night-propose").addEventListener("click", () => nightAct("propose"));
  $("night-unconfirm").addEventListener("click", () => {
    const last = night && night.rounds[night.rounds.length - 1];
    if (!last) return;
    // Undone with its results (Swiss-Manager's "delete round"): the confirmation names the tables whose results go.
    // games_played lists only the games of each round as it is paired now (Night.recorded).
    const tables = [...new Set([...night.results, ...night.games_played].filter((entry) => entry.round === last.number)
      .map((entry) => entry.table))].sort();
    const asked = tables.length
      ? t("Undo round {number}? It goes back to a proposal, to change and confirm again, and its results at table {tables} are dropped on every table: those games count no more.", { number: last.number, tables: tables.join(", ") })
      : t("Undo round {number}? It goes back to a proposal, to change and confirm again.", { number: last.number });
    if (confirm(asked)) nightAct("unconfirm");
  });
  // Asked before a round is confirmed over one still played: those games count for their own round.
  $("night-confirm").addEventListener("click", () => {
    const last = night && night.rounds[night.rounds.length - 1];
    const still = last ? night.still_played[String(last.number)] : null;
    if (!still) { nightAct("confirm"); return; }
    if (confirm(t("Round {number} is still played at table {tables}. Confirm round {next} anyway? Those games count for round {number} when they end.",
                  { number: last.number, tables: still.join(", "), next: last.number + 1 }))) nightAct("confirm", { over: true });
  });
  // A bye asked for scores what the director chooses, ½ (H) or 0 (Z); none chosen: what a round missed scores.
  const restChosen = () => $("night-rest-points").value === "" ? {} : { points: Number($("night-rest-points").value) };
  const restPoints = () => $("night-rest-points").selectedOptions[0].textContent;
  $("night-rest").addEventListener("click", () => {
    const name = $("night-remove-team").value;
    if (name && night && confirm(t("Give the team {team} the bye it asked for in round {number}? It keeps its place, and the round scores {points}.", { team: name, number: night.rounds.length + 1, points: restPoints() }))) nightAct("rest", { team: name, ...restChosen() });
  });
  $("night-rest-later").addEventListener("click", () => {
    const name = $("night-remove-team").value, rounds = roundsTyped($("night-rest-rounds").value);
    if (!rounds) { say(t("Type the rounds to sit out, as 4-5 or 4, 6"), true); return; }
    if (name && night && confirm(t("Give the team {team} the bye it asked for in rounds {rounds}? It keeps its place, and each round scores {points}.", { team: name, rounds: rounds.join(", "), points: restPoints() }))) nightAct("rest", { team: name, rounds, ...restChosen() });
  });
  $("night-slips").addEventListener("click", () => night && night.rounds.length && printNight(night.id, night.rounds.length));
  $("night-rename").addEventListener("click", () => {
    const name = $("night-remove-team").value, to = $("night-rename-to").value.trim();
    if (name && to && confirm(t("Rename the team {team} to {name}? Every table and the league name it so.", { team: name, name: to }))) {
      nightAct("rename", { team: name, to }).then((done) => { if (done) $("night-rename-to").value = ""; });
    }
  });
  $("night-apart").addEventListener("click", () => {
    const one = $("night-apart-one").value, other = $("night-apart-other").value;
    if (one && other && one !== other) nightAct("apart", { teams: [one, other] });
    else say(t("Choose two different teams to keep apart"), true);
  });
  $("night-withdraw").addEventListener("click", () => {
    const name = $("night-remove-team").value;
    if (name && confirm(t("Withdraw the team {team}? It keeps its results and is paired no more.", { team: name }))) nightAct("withdraw", { team: name });
  });
  // Asked before the night is closed while tables still play, naming them: a game ending after the close counts
  // only from a table that had not heard of it (Book.gather takes it into the closed night).
  $("night-close").addEventListener("click", () => {
    const still = night ? [...new Set(Object.values(night.still_played).flat())].sort() : [];
    if (!still.length) {
      if (confirm(t("Close the night? Its games stay kept, and it can be exported."))) nightAct("close");
    } else if (confirm(t("Still played at table {tables}: close the night anyway? A game there that ends after the close counts for nothing, unless its table was offline and had not heard of the close: it then counts once the table reports it",
                         { tables: still.join(", ") }))) nightAct("close", { confirm: true });
  });
  $("night-leave").addEventListener("click", () => {
    if (confirm(t("Leave the night? Its games played here stay kept, and its host's night goes on."))) nightAct("leave");
  });
  $("night-remove").addEventListener("click", () => { if ($("night-remove-team").value) removeTeam($("night-remove-team").value); });
  $("night-xlsx").addEventListener("click", () => night && exportNight(night.id, "xlsx"));
  $("night-csv").addEventListener("click", () => night && exportNight(night.id, "standings"));
  $("night-csv-rounds").addEventListener("click", () => night && exportNight(night.id, "rounds"));
  $("night-csv-games").addEventListener("click", () => night && exportNight(night.id, "games"));
  $("night-trf").addEventListener("click", () => night && exportNight(night.id, "trf"));
  $("night-print").addEventListener("click", () => night && printNight(night.id));
  setInterval(() => { if (csrf && !$("desk").hidden) loadNight(true); }, 5000);
  // The night as soon as the desk shows (a sign-in), not at the next tick; never before the session
  // is read (a fresh page would be told to log in before it was asked anything).
  new MutationObserver(() => { if (csrf && !$("desk").hidden) loadNight(true); })
    .observe($("desk"), { attributes: true, attributeFilter: ["hidden"] });
}

wireNight();
section({ games: drawNightGames });  // the games a night may play, as the table offers them
