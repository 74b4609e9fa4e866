// The staff page's PIN: changed by the staff, given the one it replaces, and, forgotten, reset
// before logging in with the code on the table's screen and the owner's passphrase. A section's
// script (web/sections/pin.py): the page loads it after staff.js.
import { $, api, el, formField, refresh, say, section, show, signedIn, t, worded } from "./staff.js";

function pinSection() {
  return el("section", { id: "pin-section" },
    worded("h2", "Staff PIN"),
    el("form", { id: "pin-form", class: "stack" },
      ...formField("pin-old", "Current PIN", { type: "password", autocomplete: "current-password", required: "" }),
      ...formField("pin-new", "New PIN (6 characters or more)", { type: "password", autocomplete: "new-password", minlength: "6", required: "" }),
      ...formField("pin-again", "New PIN again", { type: "password", autocomplete: "new-password", minlength: "6", required: "" }),
      worded("button", "Change the PIN", { type: "submit" })));
}

// A forgotten PIN: the code the table's screen shows when both buttons are held while it starts.
function recoverForm() {
  return el("details", { id: "recover", class: "recover" },
    worded("summary", "Forgot the PIN?"),
    worded("p", "Hold END TURN and NEW GAME while the table starts (switch it off and on, or restart the service): the spymaster screen shows a code for 10 minutes."),
    el("form", { id: "recover-form", class: "stack" },
      ...formField("recover-code", "Code on the table's screen", { inputmode: "numeric", autocomplete: "one-time-code", required: "" }),
      ...formField("recover-pin", "New PIN (6 characters or more)", { type: "password", autocomplete: "new-password", minlength: "6", required: "" }),
      ...formField("recover-passphrase", "Owner's passphrase", { type: "password", autocomplete: "current-password", required: "" }),
      worded("button", "Set the new PIN", { type: "submit" })));
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
