// The staff page's notifications (issue 62): the owner pastes an Apprise URL (e-mail, Telegram,
// ntfy...), picks the events, saves them (the table restarts to try them) and sends a test; how the
// last message went is shown, a failure's reason too. The URL is never shown back, only its service.
// A section's script (web/sections/notify.py): the page loads it after staff.js.
import { $, api, csrf, el, formField, giveFile, ownersAction, ownersView, resultLine, section, t, when, withOwner, worded } from "./staff.js";

function notifySection() {
  return el("section", { id: "notify-section", "aria-labelledby": "notify-title" },
    worded("h2", "Notifications", { id: "notify-title" }),
    worded("p", "The table sends you a message when something needs you, through Apprise: e-mail, Telegram, ntfy and more."),
    el("p", { id: "notify-line" }),
    el("p", { id: "notify-last", hidden: "" }),
    el("form", { id: "notify-form", class: "stack", hidden: "" },
      ...formField("notify-url", "Apprise URL (empty: keep the one set)", { type: "password", autocomplete: "off", maxlength: "2048", spellcheck: "false" }),
      el("fieldset", { id: "notify-events" },
        worded("legend", "Tell me when")),
      worded("button", "Save the notifications", { type: "submit" }),
      worded("button", "Send a test", { type: "button", id: "notify-test" }),
      worded("button", "Forget the address", { type: "button", id: "notify-forget" })),
    el("p", { id: "notify-result", class: "message", role: "status", hidden: "" }));
}

const notifyResult = resultLine("notify-result");

// The events the table tells of, in the section's words (``offered``): one box each, made once.
function drawEvents(offered) {
  const events = $("notify-events");
  if (events.querySelector("input")) return;
  events.append(...Object.entries(offered).map(([name, words]) => el("label", { class: "check" },
    el("input", { type: "checkbox", id: `notify-event-${name}`, value: name }),
    worded("span", words))));
}

function drawNotify(state) {
  $("notify-form").hidden = false;
  drawEvents(state.offered);
  $("notify-line").textContent = state.url ? t("Sent to {service}", { service: state.url }) : t("No address set: nothing is sent.");
  $("notify-forget").hidden = !state.url;  // nothing to forget
  const last = $("notify-last");
  last.hidden = !state.last;
  if (state.last) {
    const at = when(new Date(state.last.at * 1000));
    last.textContent = state.last.ok ? t("Last message {when}: sent.", { when: at })
      : t("Last message {when} failed: {why}", { when: at, why: state.last.why });
    last.classList.toggle("error", !state.last.ok);
  }
  if (document.activeElement === null || !$("notify-form").contains(document.activeElement)) {
    for (const name of Object.keys(state.offered)) $(`notify-event-${name}`).checked = state.events.includes(name);
  }
}

const VIEW = { path: "/staff/api/notify", draw: drawNotify, line: "notify-line", hidden: ["notify-form", "notify-last"] };
async function showNotify(state, background = false) {
  const answer = await ownersView(state, VIEW, background);
  if (answer && !answer.ok && answer.data && answer.data.error) $("notify-line").textContent = answer.data.error;
}
const loadNotify = (background = false) => withOwner(showNotify, background);

const chosen = () => [...$("notify-events").querySelectorAll("input:checked")].map((box) => box.value);

const saveNotify = (body) => giveFile("notify", body, notifyResult, "notify-url");

function sendTest() {
  notifyResult("");
  return ownersAction(() => api("POST", "/staff/api/notify/test", { url: $("notify-url").value.trim() }), (answer) => {
    drawNotify(answer.data);
    if (answer.data.last && answer.data.last.ok) notifyResult(t("Test sent: look for it where the messages arrive."));
  }, notifyResult);
}

function wireNotify() {
  $("desk").append(notifySection());
  $("notify-form").addEventListener("submit", (event) => {
    event.preventDefault();
    saveNotify({ url: $("notify-url").value.trim(), events: chosen() });
  });
  $("notify-test").addEventListener("click", sendTest);
  $("notify-forget").addEventListener("click", () => saveNotify({ url: "", events: chosen(), forget: true }));
  setInterval(() => { if (csrf && !$("desk").hidden) loadNotify(true); }, 15000);
}

wireNotify();
section({ act: "notify", result: notifyResult, owner: (state) => showNotify(state, true) });
