// The staff page's PIN: changed by the staff, given the one it replaces, and, forgotten, reset
// before logging in with the code on the table's screen and the owner's passphrase. A section's
// script (web/sections/pin.py): the page loads it after staff.js.
import { $, api, el, refresh, say, section, show, signedIn, t } from "./staff.js";

function pinSection() {
  return el("section", { id: "pin-section" },
    el("h2", { "data-t": "Staff PIN", text: t("Staff PIN") }),
    el("form", { id: "pin-form", class: "stack" },
      el("label", { for: "pin-old", "data-t": "Current PIN", text: t("Current PIN") }),
      el("input", { id: "pin-old", type: "password", autocomplete: "current-password", required: "" }),
      el("label", { for: "pin-new", "data-t": "New PIN (6 characters or more)", text: t("New PIN (6 characters or more)") }),
      el("input", { id: "pin-new", type: "password", autocomplete: "new-password", minlength: "6", required: "" }),
      el("label", { for: "pin-again", "data-t": "New PIN again", text: t("New PIN again") }),
      el("input", { id: "pin-again", type: "password", autocomplete: "new-password", minlength: "6", required: "" }),
      el("button", { type: "submit", "data-t": "Change the PIN", text: t("Change the PIN") })));
}

// A forgotten PIN: the code the table's screen shows when both buttons are held while it starts.
function recoverForm() {
  return el("details", { id: "recover", class: "recover" },
    el("summary", { "data-t": "Forgot the PIN?", text: t("Forgot the PIN?") }),
    el("p", { "data-t": "Hold END TURN and NEW GAME while the table starts (switch it off and on, or restart the service): the spymaster screen shows a code for 10 minutes.", text: t("Hold END TURN and NEW GAME while the table starts (switch it off and on, or restart the service): the spymaster screen shows a code for 10 minutes.") }),
    el("form", { id: "recover-form", class: "stack" },
      el("label", { for: "recover-code", "data-t": "Code on the table's screen", text: t("Code on the table's screen") }),
      el("input", { id: "recover-code", inputmode: "numeric", autocomplete: "one-time-code", required: "" }),
      el("label", { for: "recover-pin", "data-t": "New PIN (6 characters or more)", text: t("New PIN (6 characters or more)") }),
      el("input", { id: "recover-pin", type: "password", autocomplete: "new-password", minlength: "6", required: "" }),
      el("label", { for: "recover-passphrase", "data-t": "Owner's passphrase", text: t("Owner's passphrase") }),
      el("input", { id: "recover-passphrase", type: "password", autocomplete: "current-password", required: "" }),
      el("button", { type: "submit", "data-t": "Set the new PIN", text: t("Set the new PIN") })));
}

$("login").after(recoverForm());
$("recover-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const answer = await api("POST", "/staff/recover", { code: $("recover-code").value, pin: $("recover-pin").value,
    passphrase: $("recover-passphrase").value });
  $("recover-pin").value = $("recover-passphrase").value = "";
  if (!answer.ok) return say(answer.data ? answer.data.error : `HTTP ${answer.status}`, true);
  signedIn(answer.data.csrf);
  $("recover").open = false;
  say(t("The PIN is changed: every other phone logs in again with the new one."));
  show("desk");
  refresh();
});
$("desk").append(pinSection());
$("pin-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  if ($("pin-new").value !== $("pin-again").value) return say(t("the two new PINs differ"), true);
  const answer = await api("POST", "/staff/api/pin", { old: $("pin-old").value, new: $("pin-new").value });
  for (const id of ["pin-old", "pin-new", "pin-again"]) $(id).value = "";
  if (answer.ok) { signedIn(answer.data.csrf); say(t("The PIN is changed: every other phone logs in again with the new one.")); }
  else if (answer.status !== 401) say(answer.data ? answer.data.error : `HTTP ${answer.status}`, true);
});
section({ shown: (what) => { $("recover").hidden = what === "desk"; } });
