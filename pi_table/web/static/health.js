// The staff page's health: the headline with what needs attention and this computer's readings
// under it, the page's address as a QR code, and the service's log by level, search and time
// range. A section's script (web/sections/health.py): the page loads it after staff.js.
import { $, api, download, el, formField, number, readWhen, redraw, section, setText, t, typedWhen, worded } from "./staff.js";

const LOG_LEVELS = [["info", "everything"], ["warning", "warnings and errors"], ["error", "errors only"]];

function healthSection() {
  return el("section", { id: "health", "aria-labelledby": "health-title" },
    worded("h2", "Health", { id: "health-title" }),
    el("p", { id: "headline", class: "headline", role: "status" }),
    el("p", { id: "headline-advice", class: "advice" }),
    el("ul", { id: "attention", class: "attention" }),
    el("dl", { id: "readings", class: "readings" }),
    el("figure", { id: "address", class: "address" }));
}

function logSection() {
  const logLevel = el("select", { id: "log-level", "aria-label": t("Show"), "data-t-label": "Show" },
    ...LOG_LEVELS.map(([value, label]) => worded("option", label, { value })));
  return el("section", { id: "log-section" },
    worded("h2", "Log"),
    el("div", { class: "row" }, logLevel,
      el("input", { id: "log-search", type: "search", "aria-label": t("Search the log"), "data-t-label": "Search the log",
                    placeholder: t("Search the log"), "data-t-placeholder": "Search the log" }),
      worded("button", "Refresh", { id: "log-refresh", class: "quiet" }),
      worded("button", "Download", { id: "log-download", class: "quiet" })),
    el("div", { class: "row span" },
      ...formField("log-since", "From", { type: "text", autocomplete: "off" }),
      ...formField("log-until", "To", { type: "text", autocomplete: "off" })),
    el("p", { id: "log-note", class: "note", hidden: "" }),
    // the service's own lines, in English on every page (journald's): said so, for a screen reader's voice
    el("pre", { id: "log", class: "log", tabindex: "0", lang: "en" }));
}

function reading(label, value) {
  return [el("dt", { text: label }), el("dd", { text: value })];
}

function drawHealth(health) {
  const line = health.headline;
  const headline = $("headline");
  setText(headline, line.more ? `${line.text} ${t("(+{count} more)", { count: line.more })}` : line.text);  // a status line
  headline.classList.toggle("bad", !line.ok);
  $("headline-advice").textContent = line.advice || "";
  $("attention").replaceChildren(...health.attention.slice(1).map((each) =>
    el("li", {}, el("strong", { text: each.what }), " ", each.advice)));
  const r = health.readings;
  const mb = (value) => value == null ? t("no reading") : `${number(Math.round(value))} MB`;
  const power = r.power == null ? t("no reading")
    : r.power.under_voltage ? t("under-voltage now") : r.power.under_voltage_since_boot ? t("under-voltage since the start") : t("ok");
  $("readings").replaceChildren(
    ...reading(t("Disk free"), r.disk_free_mb == null ? t("no reading") : `${mb(r.disk_free_mb)} / ${mb(r.disk_total_mb)}`),
    ...reading(t("CPU temperature"), r.cpu_temp_c == null ? t("no reading") : `${number(r.cpu_temp_c)} °C`),
    ...reading(t("Power supply"), power),
    ...reading(t("Memory free"), r.memory_available_mb == null ? t("no reading") : `${mb(r.memory_available_mb)} / ${mb(r.memory_total_mb)}`),
    ...reading(t("Computer up"), r.uptime_s == null ? t("no reading") : duration(r.uptime_s)),
    ...reading(t("Service up"), duration(health.uptime_s)),
    ...reading(t("Version"), health.version),
    ...(health.certificate ? reading(t("The page's certificate (SHA-256)"), health.certificate) : []));
  redraw($("address"), health.address, () => {  // drawn again only when it changes: its link keeps the focus
    if (!health.address) return [];
    const qr = new DOMParser().parseFromString(health.address.qr_svg, "image/svg+xml").documentElement;
    qr.setAttribute("role", "img");
    qr.setAttribute("aria-label", t("QR code of this page: {address}", { address: health.address.staff }));
    return [qr, el("figcaption", {}, t("This page's address: "), el("a", { href: health.address.staff, text: health.address.staff }))];
  });
}

function duration(seconds) {
  const minutes = Math.floor(seconds / 60), hours = Math.floor(minutes / 60), days = Math.floor(hours / 24);
  if (days) return t("{days} d {hours} h", { days, hours: hours % 24 });
  if (hours) return t("{hours} h {minutes} min", { hours, minutes: minutes % 60 });
  return t("{minutes} min", { minutes });
}

// Exported: tests/test_a11y.py runs the page's own refreshes on demand; no script imports it.
export async function loadHealth(background = false) {
  const answer = await api("GET", "/staff/api/health", undefined, background);
  if (answer.ok) drawHealth(answer.data);
}

// The log's query: its level, its search, and its time range (the journal's, across the service's starts).
function logQuery() {
  const query = new URLSearchParams({ level: $("log-level").value, q: $("log-search").value });
  for (const name of ["since", "until"]) {
    const field = $(`log-${name}`);
    field.placeholder = typedWhen(new Date());  // as the page's language writes a date, not the phone's locale
    const chosen = field.value.trim() ? readWhen(field.value) : null;  // the phone's local time
    field.setAttribute("aria-invalid", String(!!field.value.trim() && chosen === null));
    if (chosen && name === "until" && (field.value.match(/\d+/g) || []).length === 3) chosen.setDate(chosen.getDate() + 1);  // a day alone: to its end
    if (chosen) query.set(name, String(Math.floor(chosen.getTime() / 1000)));
  }
  return query;
}

async function loadLog() {
  const answer = await api("GET", `/staff/api/log?${logQuery()}`);
  if (!answer.ok) return;
  $("log").textContent = answer.data.lines.join("\n");
  $("log").scrollTop = 1e9;
  $("log-note").textContent = answer.data.note || "";
  $("log-note").hidden = !answer.data.note;
}

$("desk").prepend(healthSection());
$("desk").append(logSection());
$("log-level").addEventListener("change", loadLog);
let typing = null;
$("log-search").addEventListener("input", () => { clearTimeout(typing); typing = setTimeout(loadLog, 300); });
$("log-refresh").addEventListener("click", () => { loadLog(); loadHealth(); });
for (const id of ["log-since", "log-until"]) $(id).addEventListener("change", loadLog);
$("log-download").addEventListener("click", () => download(`/staff/api/log.txt?${logQuery()}`, "pi-table-log.txt"));
section({ refresh: () => Promise.all([loadHealth(), loadLog()]), poll: () => loadHealth(true) });
