// The staff page's power, the owner's: restart the computer, or shut it down. A section's script
// (web/sections/power.py): the page loads it after staff.js.
import { $, api, backAfterRestart, el, ownersAction, say, t } from "./staff.js";

function powerSection() {
  return el("section", { id: "power-section" },
    el("h2", { "data-t": "Power", text: t("Power") }),
    el("div", { class: "row" },
      el("button", { id: "reboot", class: "warn", "data-t": "Restart the computer", text: t("Restart the computer") }),
      el("button", { id: "poweroff", class: "warn", "data-t": "Shut down", text: t("Shut down") })));
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
