// The staff page's reading of the cards: a photo of the laid-out cards, read by the table, and the
// 25 words in their places to fix and confirm for the game on the table. A section's script
// (web/sections/cards.py): the page loads it after staff.js. The picture goes to the table to be
// read and is kept nowhere.
import { $, api, csrf, el, grid, label, lang, resultLine, section, t, worded } from "./staff.js";

const cardsResult = resultLine("cards-result");

function cardsSection() {
  return el("section", { id: "cards-section", "aria-labelledby": "cards-title" },
    worded("h2", "The words on the cards", { id: "cards-title" }),
    worded("p", "Take a photo of the laid-out cards from the spymasters' side: the table reads the 25 words, which you check and confirm.", { class: "note" }),
    el("p", { id: "cards-unavailable", class: "message", hidden: "" }),
    el("div", { id: "cards-take", class: "stack" },
      label("cards-picture", "Read the cards"),
      el("input", { id: "cards-picture", type: "file", accept: "image/*", capture: "environment" })),
    el("form", { id: "cards-form", class: "stack", hidden: "" },
      el("div", { id: "cards-words", class: "cards-words" }),
      el("datalist", { id: "cards-deck" }),
      worded("button", "Confirm the words", { type: "submit" })),
    el("p", { id: "cards-result", class: "message", role: "status", hidden: "" }));
}

async function loadCards(background = false) {
  const answer = await api("GET", "/staff/api/cards", undefined, background);
  if (!answer.ok) return;
  $("cards-unavailable").hidden = answer.data.available;
  $("cards-unavailable").textContent = answer.data.unavailable || "";
  $("cards-take").hidden = !answer.data.available;
  $("cards-deck").replaceChildren(...answer.data.deck.map((word) => el("option", { value: word })));
}

function drawWords(read) {
  // The words as the picture gives them, in reading order (the picture taken from the spymasters'
  // side, as the grid is drawn), each in its cell's place; a word not read is left to type.
  const order = grid ? grid.order : read.map((_, cell) => cell);
  $("cards-words").replaceChildren(...order.map((cell, index) => el("div", { class: "cards-cell" },
    label(`cards-word-${cell}`, t("card {cell}", { cell })),
    el("input", { id: `cards-word-${cell}`, list: "cards-deck", maxlength: "20", required: "", autocomplete: "off",
      spellcheck: "false", value: read[index] || "" }))));
  $("cards-form").hidden = false;
}

$("desk").append(cardsSection());
$("cards-picture").addEventListener("change", async () => {
  const picture = $("cards-picture").files[0];
  if (!picture) return;
  cardsResult(t("Reading the cards…"));
  const response = await fetch("/staff/api/cards", { method: "POST", body: picture,
    headers: { "X-Staff-Token": csrf || "", "X-Staff-Lang": lang, "Content-Type": picture.type || "application/octet-stream" } });
  $("cards-picture").value = "";
  const answer = await response.json().catch(() => ({ ok: false, error: `HTTP ${response.status}` }));
  if (!answer.ok) return cardsResult(answer.error, true);
  drawWords(answer.words);
  cardsResult(t("Check each word against its card, fix any, then confirm."));
});
$("cards-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const words = [...Array(25).keys()].map((cell) => $(`cards-word-${cell}`).value.trim());
  const answer = await api("POST", "/staff/api/cards/words", { words });
  if (!answer.ok) return cardsResult(answer.data ? answer.data.error : `HTTP ${answer.status}`, true);
  $("cards-form").hidden = true;
  cardsResult(t("The words are confirmed: every screen shows them."));
});
section({ refresh: () => loadCards() });
