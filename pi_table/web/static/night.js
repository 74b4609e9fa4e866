// The game night on the staff page (after staff.js, whose api(), t(), el(), say() and download() it uses):
// open a night, add teams and approve or remove those from the phones, propose, swap and confirm rounds,
// the standings, close and export; follow a night another table offers (with its code) and leave it.
"use strict";

function nightSection() {
  return el("section", { id: "night-section" },
    el("h2", { "data-t": "Game night", text: t("Game night") }),
    el("p", { id: "night-state", class: "note" }),
    el("p", { id: "night-host", class: "note", hidden: "" }),
    el("p", { id: "night-code", hidden: "" }),
    el("div", { id: "night-offers" }),
    el("form", { id: "night-open", class: "stack" },
      el("label", { for: "night-name", "data-t": "Night's name", text: t("Night's name") }),
      el("input", { id: "night-name", maxlength: "40", required: "" }),
      el("label", { for: "night-games", "data-t": "Games", text: t("Games") }),
      el("input", { id: "night-games", value: "codenames" }),
      el("label", { for: "night-tables", "data-t": "Tables (their names, separated by spaces)",
                    text: t("Tables (their names, separated by spaces)") }),
      el("input", { id: "night-tables", value: "1" }),
      el("button", { type: "submit", "data-t": "Open the night", text: t("Open the night") })),
    el("div", { id: "night-open-desk", hidden: "" },
      el("form", { id: "night-join", class: "row" },
        el("input", { id: "night-team", maxlength: "24", "aria-label": t("Team"), placeholder: t("Team"), required: "" }),
        el("input", { id: "night-nicknames", "aria-label": t("Nicknames (optional, separated by commas)"),
                      placeholder: t("Nicknames (optional, separated by commas)") }),
        el("button", { type: "submit", "data-t": "Add the team", text: t("Add the team") })),
      el("p", { id: "night-teams" }),
      el("div", { id: "night-remove-row", class: "row", hidden: "" },
        el("select", { id: "night-remove-team", "aria-label": t("Team") }),
        el("button", { id: "night-remove", class: "quiet", "data-t": "Remove", text: t("Remove") })),
      el("div", { id: "night-waiting" }),
      el("div", { class: "row" },
        el("button", { id: "night-propose", "data-t": "Propose the next round", text: t("Propose the next round") }),
        el("button", { id: "night-confirm", "data-t": "Confirm the round", text: t("Confirm the round") })),
      el("div", { id: "night-round" }),
      el("h3", { "data-t": "Standings", text: t("Standings") }),
      el("div", { class: "scroll" }, el("table", { id: "night-standings", class: "history" })),
      el("div", { class: "row" },
        el("button", { id: "night-csv", class: "quiet", "data-t": "Export CSV", text: t("Export CSV") }),
        el("button", { id: "night-print", class: "quiet", "data-t": "Print", text: t("Print") }),
        el("button", { id: "night-close", class: "warn", "data-t": "Close the night", text: t("Close the night") }),
        el("button", { id: "night-leave", class: "warn", "data-t": "Leave the night", text: t("Leave the night") }))),
    el("div", { id: "night-kept" }));
}

let night = null;
const HOSTED = "This night is run from the staff page of table {host}: it is shown here, not changed.";
const KEPT_SHOWN = 5;  // the latest nights kept, each with its exports (a closed night is exported from here)

function exportNight(id) {
  download(`/staff/api/night/${id}.csv`, `pi-table-night-${id}.csv`);
}

async function printNight(id) {
  const answer = await api("GET", `/staff/api/night/${id}/print`);
  if (answer.ok) window.open(URL.createObjectURL(await answer.response.blob()), "_blank");
}

function drawKept(kept) {
  const latest = kept.slice(-KEPT_SHOWN).reverse();
  $("night-kept").replaceChildren(...(latest.length ? [el("h3", { "data-t": "Nights kept", text: t("Nights kept") })] : []),
    ...latest.map((id) => {
      const csv = el("button", { class: "quiet night-csv", "data-night": id, text: t("Export CSV") });
      const print = el("button", { class: "quiet night-print", "data-night": id, text: t("Print") });
      csv.addEventListener("click", () => exportNight(id));
      print.addEventListener("click", () => printNight(id));
      return el("div", { class: "row" }, el("span", { text: id }), csv, print);
    }));
}

function drawRound(round, proposed) {
  const box = $("night-round");
  box.replaceChildren();
  if (!round) return;
  const teams = [...round.pairs.flatMap((pair) => [pair.red, pair.blue]), ...round.resting];
  box.append(el("h3", { text: `${t("Round {number}", { number: round.number })}${proposed ? " ?" : ""}` }));
  for (const pair of round.pairs) {
    box.append(el("p", { class: "pair", text: `${t("table")} ${pair.table}: ${pair.red} – ${pair.blue}` }));
  }
  if (round.resting.length) box.append(el("p", { class: "note", text: `${t("sitting out")}: ${round.resting.join(", ")}` }));
  if (!proposed) return;
  const one = el("select", { id: "night-swap-one" }, ...teams.map((name) => el("option", { value: name, text: name })));
  const other = el("select", { id: "night-swap-other" }, ...teams.map((name) => el("option", { value: name, text: name })));
  const swap = el("button", { id: "night-swap", class: "quiet", "data-t": "Swap", text: t("Swap") });
  swap.addEventListener("click", () => nightAct("swap", { one: one.value, other: other.value }));
  box.append(el("div", { class: "row" }, one, other, swap));
}

// The nights other tables offer this one (their plans name it): each followed once its code is typed here.
function drawOffers(offers) {
  $("night-offers").replaceChildren(...(offers.length ? [el("h3", { "data-t": "Nights on offer to this table",
    text: t("Nights on offer to this table") })] : []), ...offers.map((offer) => {
    const code = el("input", { class: "night-offer-code", maxlength: "12", autocomplete: "off",
                               "aria-label": t("Code on its host's screen"), placeholder: t("Code on its host's screen") });
    const follow = el("button", { class: "night-accept", "data-host": offer.host, text: t("Follow this night") });
    follow.addEventListener("click", () => nightAct("accept", { host: offer.host, code: code.value }));
    return el("div", { class: "row night-offer" }, el("span", { text: `${t("table")} ${offer.host}: ${offer.name}` }), code, follow);
  }));
}

// The teams that joined from the phones, each approved or removed by the staff.
function drawWaiting(waiting) {
  $("night-waiting").replaceChildren(...(waiting.length ? [el("h3", { "data-t": "Waiting for the staff",
    text: t("Waiting for the staff") })] : []), ...waiting.map((team) => {
    const approve = el("button", { class: "night-approve", "data-team": team.name, text: t("Approve") });
    const remove = el("button", { class: "quiet night-refuse", "data-team": team.name, text: t("Remove") });
    approve.addEventListener("click", () => nightAct("approve", { team: team.name }));
    remove.addEventListener("click", () => removeTeam(team.name));
    const nicknames = team.nicknames.length ? ` (${team.nicknames.join(", ")})` : "";
    return el("div", { class: "row night-waiting" }, el("span", { text: team.name + nicknames }), approve, remove);
  }));
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
  drawKept(data.kept);
  drawOffers(data.offers || []);
  $("night-code").hidden = !(night && night.code);
  $("night-code").textContent = night && night.code ? t("Code for the other tables: {code}", { code: night.code }) : "";
  if (!night) return;
  $("night-teams").textContent = `${t("Teams")}: ${night.teams.map((team) => team.name).join(", ")}`;
  drawWaiting(night.host ? [] : night.waiting);
  const removable = night.teams.map((team) => team.name).filter((name) => night.removable.includes(name));
  $("night-remove-team").replaceChildren(...removable.map((name) => el("option", { value: name, text: name })));
  $("night-remove-row").hidden = !!night.host || !removable.length;
  drawRound(night.proposal || night.rounds[night.rounds.length - 1], !!night.proposal);
  $("night-confirm").disabled = !night.proposal;
  // A night followed from its host's plan is shown here, run there.
  $("night-host").hidden = !night.host;
  $("night-host").textContent = night.host ? t(HOSTED, { host: night.host }) : "";
  for (const id of ["night-join", "night-propose", "night-confirm", "night-close"]) $(id).hidden = !!night.host;
  $("night-leave").hidden = !night.host;
  const columns = ["played", "won", "lost", "points", "margin", "rating"];
  $("night-standings").replaceChildren(
    el("tr", {}, el("th", { text: t("Team") }), ...columns.map((name) => el("th", { text: t(name) }))),
    ...night.standings.map((line, place) => el("tr", { class: "standing" },
      el("td", { text: `${place + 1}. ${line.team}` }), ...columns.map((name) => el("td", { text: String(line[name]) })))));
}

async function loadNight(background = false) {
  const answer = await api("GET", "/staff/api/night", undefined, background);
  if (answer.ok) drawNight(answer.data);
}

async function nightAct(what, body = {}) {
  const answer = await api("POST", `/staff/api/night/${what}`, body);
  if (answer.ok) { say(""); drawNight(answer.data); } else if (answer.status !== 401) say(answer.data ? answer.data.error : `HTTP ${answer.status}`, true);
  return answer.ok;
}

document.addEventListener("DOMContentLoaded", () => {
  $("desk").append(nightSection());
  const words = (id) => $(id).value.split(/[\s,]+/).filter(Boolean);
  $("night-open").addEventListener("submit", (event) => {
    event.preventDefault();
    nightAct("open", { name: $("night-name").value, games: words("night-games"), tables: words("night-tables") });
  });
  $("night-join").addEventListener("submit", async (event) => {
    event.preventDefault();
    const nicknames = $("night-nicknames").value.split(",").map((nick) => nick.trim()).filter(Boolean);
    if (await nightAct("join", { team: $("night-team").value, nicknames })) { $("night-team").value = ""; $("night-nicknames").value = ""; }
  });
  $("night-propose").addEventListener("click", () => nightAct("propose"));
  $("night-confirm").addEventListener("click", () => nightAct("confirm"));
  $("night-close").addEventListener("click", () => {
    if (confirm(t("Close the night? Its games stay kept, and it can be exported."))) nightAct("close");
  });
  $("night-leave").addEventListener("click", () => {
    if (confirm(t("Leave the night? Its games played here stay kept, and its host's night goes on."))) nightAct("leave");
  });
  $("night-remove").addEventListener("click", () => { if ($("night-remove-team").value) removeTeam($("night-remove-team").value); });
  $("night-csv").addEventListener("click", () => night && exportNight(night.id));
  $("night-print").addEventListener("click", () => night && printNight(night.id));
  setInterval(() => { if (csrf && !$("desk").hidden) loadNight(true); }, 5000);
  // The night as soon as the desk shows (a sign-in), not at the next tick.
  new MutationObserver(() => { if (csrf && !$("desk").hidden) loadNight(true); })
    .observe($("desk"), { attributes: true, attributeFilter: ["hidden"] });
  loadNight(true);
});
