// The staff page's fleet dashboard: this table shows the café's dashboard itself (no other
// machine needed), reading the broker as the dashboard's own user; the owner turns it on or off
// here, and the table restarts to try it. Its result shows beside its button. A section's script
// (web/sections/dashboard.py): the page loads it after staff.js.
import { $, csrf, el, giveFile, ownersView, resultLine, section, t, withOwner } from "./staff.js";

function fleetSection() {
  return el("section", { id: "dashboard-section", "aria-labelledby": "dashboard-title" },
    el("h2", { id: "dashboard-title", "data-t": "Fleet dashboard", text: t("Fleet dashboard") }),
    el("p", { id: "dashboard-line" }),
    el("p", {}, el("a", { id: "dashboard-link", hidden: "", target: "_blank", rel: "noopener" })),
    el("form", { id: "dashboard-form", class: "stack", hidden: "" },
      el("label", { for: "dashboard-port", "data-t": "Its port (0: not on this table)", text: t("Its port (0: not on this table)") }),
      el("input", { id: "dashboard-port", type: "number", min: "0", max: "65535", value: "8025", required: "" }),
      el("label", { for: "dashboard-user", "data-t": "The broker's user it reads as", text: t("The broker's user it reads as") }),
      el("input", { id: "dashboard-user", maxlength: "64", value: "dashboard", autocomplete: "off", required: "" }),
      el("label", { for: "dashboard-password", "data-t": "That user's broker password (empty: keep the one set)",
        text: t("That user's broker password (empty: keep the one set)") }),
      el("input", { id: "dashboard-password", type: "password", autocomplete: "off", maxlength: "1024" }),
      el("button", { type: "submit", "data-t": "Save the dashboard", text: t("Save the dashboard") })),
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
