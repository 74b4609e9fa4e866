// The staff page's security updates: when the table applies Debian's security updates by itself,
// the last run (what changed, whether a reboot is due, how it ended) and a run now, the owner's.
// Its result shows beside its button. A section's script (web/sections/security.py): the page
// loads it after staff.js.
import { $, api, csrf, el, ownersAction, resultLine, t, when as at, worded } from "./staff.js";

const RUNNING_MS = 3000;  // while a run is under way its end is shown within seconds, not the 15 s of an idle section
let securityPoll = null;
let asked = null;  // when the table took the run asked (its clock): its "Asked" line goes once the last run is as new

function securitySection() {
  return el("section", { id: "security-section", "aria-labelledby": "security-title" },
    worded("h2", "Security updates", { id: "security-title" }),
    el("p", { id: "security-schedule" }),
    el("p", { id: "security-last" }),
    el("p", { id: "security-reboot", class: "note", hidden: "" }),
    el("details", { id: "security-changed", hidden: "" },
      worded("summary", "What changed"),
      el("ul", { id: "security-packages" })),
    el("p", { id: "security-result", class: "message", role: "status", hidden: "" }),
    worded("button", "Apply them now", { id: "security-run" }));
}

const securityResult = resultLine("security-result");

const LAST = {
  nothing: "Last run {when}: nothing to update.",
  done: "Last run {when}: {count} packages updated.",
  failed: "Last run {when}: failed.",
  unhealthy: "Last run {when}: the table was not healthy after it.",
};

function drawSecurity(data) {
  const { every, hour } = data.schedule;
  if (asked !== null && !data.running && data.last && data.last.at >= asked) {  // through a restart on it too
    securityResult("");  // the run's result is the last run's line
    asked = null;
  }
  $("security-schedule").textContent = every === "off"
    ? t("The table applies no security updates by itself (Configuration, Advanced: Security updates).")
    : t(every === "weekly"
      ? "Debian's security updates are applied by the table every Monday at {hour}:00, or at the first idle moment after it."
      : "Debian's security updates are applied by the table every day at {hour}:00, or at the first idle moment after it.",
    { hour });
  const last = data.last;
  const ran = last && last.at ? at(new Date(last.at * 1000)) : "?";
  const now = data.checking ? t("Applied ({count} packages): the table checks it is healthy on them…", { count: data.applied.length })
    : t("Being applied now…");
  let said = data.running ? now : last ? t(LAST[last.outcome] || LAST.failed, { when: ran, count: last.changed.length }) : t("No run yet.");
  if (!data.running && last && last.why) said += ` ${last.why}`;
  if (data.waits) said += ` (${data.waits})`;
  $("security-last").textContent = said;
  $("security-last").classList.toggle("error", !data.running && !!last && ["failed", "unhealthy"].includes(last.outcome));
  $("security-reboot").hidden = !(last && last.reboot);
  if (last && last.reboot) {
    $("security-reboot").textContent = last.reboot_for.length
      ? t("A reboot is due to finish them ({packages}): Restart the computer under Power.", { packages: last.reboot_for.join(", ") })
      : t("A reboot is due to finish them: Restart the computer under Power.");
  }
  const changed = last ? last.changed : [];
  $("security-changed").hidden = !changed.length;
  $("security-packages").replaceChildren(...changed.map((each) =>
    el("li", { text: `${each.package.split(":")[0]}: ${each.from || "-"} → ${each.to || "-"}` })));
  $("security-run").disabled = data.running;
  if (data.running && securityPoll === null) {
    securityPoll = setInterval(() => { if (csrf && !$("desk").hidden) loadSecurity(true); }, RUNNING_MS);
  }
  if (!data.running && securityPoll !== null) { clearInterval(securityPoll); securityPoll = null; }
}

async function loadSecurity(background = false) {
  const answer = await api("GET", "/staff/api/security", undefined, background);
  if (answer.ok) drawSecurity(answer.data);
}

function runSecurity() {
  return ownersAction(() => api("POST", "/staff/api/security", { act: "run" }), (answer) => {
    securityResult(t("Asked: the table applies them in the next minutes."));
    asked = answer.data.asked;
    loadSecurity(true);
  }, securityResult);
}

function wireSecurity() {
  $("desk").append(securitySection());
  $("security-run").addEventListener("click", () => {
    if (confirm(t("Apply Debian's security updates now? If any is applied, the table restarts on it and the game resumes."))) runSecurity();
  });
  setInterval(() => { if (csrf && !$("desk").hidden) loadSecurity(true); }, 15000);
  new MutationObserver(() => { if (csrf && !$("desk").hidden) loadSecurity(true); })
    .observe($("desk"), { attributes: true, attributeFilter: ["hidden"] });  // read once logged in, never before
}

wireSecurity();
