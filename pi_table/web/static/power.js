// The staff page's power, the owner's: restart the computer, or shut it down. A section's script
// (web/sections/power.py): the page loads it after staff.js.
import { $, api, backAfterRestart, el, ownersAction, say, t, worded } from "./staff.js";

function powerSection() {
  return el("section", { id: "power-section" },
    worded("h2", "Power"),
    el("div", { class: "row" },
      worded("button", "Restart the computer", { id: "reboot", class: "warn" }),
      worded("button", "Shut down", { id: "poweroff", class: "warn" })));
}

async function switchPower(act, question, done) {
  if (!confirm(question)) return;
  await ownersAction(() => api("POST", "/staff/api/power", { act }), () => { say(done); if (act === "reboot") backAfterRestart(); });
}

$("desk").append(powerSection());
$("reboot").addEventListener("click", () => switchPower("reboot",
  t("Restart the computer? The game resumes once it is back (about a minute)."), t("The computer is restarting…")));
$("poweroff").addEventListener("click", () => switchPower("poweroff",
  t("Shut the computer down? Someone must switch it on again at the table."), t("The computer is shutting down…")));
