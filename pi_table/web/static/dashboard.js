// The staff page's fleet dashboard: this table shows the café's dashboard itself (no other
// machine needed), reading the broker as the dashboard's own user; the owner turns it on or off
// here, and the table restarts to try it. Its result shows beside its button. A section's script
// (web/sections/dashboard.py): the page loads it after staff.js.
import { $, csrf, el, formField, giveFile, ownersView, resultLine, section, t, withOwner, worded } from "./staff.js";

function fleetSection() {
  return el("section", { id: "dashboard-section", "aria-labelledby": "dashboard-title" },
    worded("h2", "Fleet dashboard", { id: "dashboard-title" }),
    el("p", { id: "dashboard-line" }),
    el("p", {}, el("a", { id: "dashboard-link", hidden: "", target: "_blank", rel: "noopener" })),
    el("form", { id: "dashboard-form", class: "stack", hidden: "" },
      ...formField("dashboard-port", "Its port (0: not on this table)", { type: "number", min: "0", max: "65535", value: "8025", required: "" }),
      ...formField("dashboard-user", "The broker's user it reads as", { maxlength: "64", value: "dashboard", autocomplete: "off", required: "" }),
      ...formField("dashboard-password", "That user's broker password (empty: keep the one set)", { type: "password", autocomplete: "off", maxlength: "1024" }),
      worded("button", "Save the dashboard", { type: "submit" })),
    el("p", { id: "dashboard-result", class: "message", role: "status", hidden: "" }));
}

const dashboardResult = resultLine("dashboard-result");

function drawDashboard(files) {
  const shown = files.dashboard;
  const broker = files.broker.broker;
  $("dashboard-form").hidden = false;
  $("dashboard-line").textContent = !broker ? t("Set the fleet broker first: the dashboard reads every table from it.")
    : shown.port ? t("This table shows the café's dashboard; log in there with the owner's passphrase.")
      : t("This table does not show the café's dashboard.");
  const link = $("dashboard-link");
  link.hidden = !shown.port;
  if (shown.port) {
    link.href = `${location.protocol}//${location.hostname}:${shown.port}/`;
    link.textContent = link.href;
  }
  if (document.activeElement === null || !$("dashboard-form").contains(document.activeElement)) {
    $("dashboard-port").value = shown.port || 8025;
    $("dashboard-user").value = shown.user;
  }
}

// The owner's files: the dashboard's part of them.
const VIEW = { path: "/staff/api/files", draw: drawDashboard, line: "dashboard-line", hidden: ["dashboard-form"] };
const showDashboard = (state, background = false) => ownersView(state, VIEW, background);
const loadDashboard = (background = false) => withOwner(showDashboard, background);

function wireFleet() {
  $("desk").append(fleetSection());
  $("dashboard-form").addEventListener("submit", (event) => {
    event.preventDefault();
    giveFile("dashboard", { port: Number($("dashboard-port").value), user: $("dashboard-user").value.trim(),
      password: $("dashboard-password").value }, dashboardResult, "dashboard-password");
  });
  setInterval(() => { if (csrf && !$("desk").hidden) loadDashboard(true); }, 15000);
}

wireFleet();
section({ act: "dashboard", result: dashboardResult, owner: (state) => showDashboard(state, true) });  // once logged in (the page tells the owner's state), and at each unlock
