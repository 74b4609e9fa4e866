// The staff page's network beyond Wi-Fi: the host name, the cable's and the Wi-Fi's addresses, a
// fixed address (or an automatic one again) and a new host name, each a trial the table keeps once
// this page is reached again where the change said, and puts back by itself otherwise. Its result
// shows beside its button. A section's script (web/sections/network.py): the page loads it
// after staff.js.
import { $, api, csrf, el, formField, label, ownersAction, resultLine, t, worded } from "./staff.js";

const TRIAL_MIN = 2;  // the root helper's network.TRIAL_S, in minutes

function networkSection() {
  const field = (id, text, attributes = {}) => formField(id, text, { autocomplete: "off", ...attributes });
  return el("section", { id: "network-section", "aria-labelledby": "network-title" },
    worded("h2", "Network", { id: "network-title" }),
    el("ul", { id: "network-devices" }),
    el("p", { id: "network-trial", class: "note", hidden: "" }),
    el("p", { id: "network-last", class: "note", hidden: "" }),
    el("form", { id: "network-ipv4", class: "stack" },
      label("network-device", "Address"),
      el("select", { id: "network-device" }, worded("option", "Cable", { value: "eth0" }), el("option", { value: "wlan0", text: "Wi-Fi" })),
      el("select", { id: "network-method", "aria-label": t("Address"), "data-t-label": "Address" },
        worded("option", "Automatic (from the café's router)", { value: "auto" }),
        worded("option", "Fixed", { value: "manual" })),
      ...field("network-address", "Fixed address (such as 192.168.1.50/24)", { inputmode: "decimal", maxlength: "18" }),
      ...field("network-gateway", "Gateway (the router's address)", { inputmode: "decimal", maxlength: "15" }),
      ...field("network-dns", "DNS server", { inputmode: "decimal", maxlength: "15" }),
      worded("button", "Use this address", { type: "submit" })),
    el("form", { id: "network-name", class: "stack" },
      ...field("network-host", "Host name", { maxlength: "63" }),
      worded("button", "Change the host name", { type: "submit" })),
    el("p", { id: "network-result", class: "message", role: "status", hidden: "" }));
}

const networkResult = resultLine("network-result");

function drawNetwork(data) {
  $("network-section").hidden = !data.known;
  if (!data.known) return;
  $("network-devices").replaceChildren(
    el("li", { text: `${t("Host name")}: ${data.host_name || "?"}` }),
    ...data.devices.map((each) => el("li", {
      text: `${each.device === "eth0" ? t("Cable") : "Wi-Fi"}: ${each.connection ? `${each.connection}, ${each.address || "?"}` : t("not connected")}`,
    })));
  if (document.activeElement !== $("network-host")) $("network-host").value = data.host_name || "";
  $("network-trial").hidden = !data.trial;
  if (data.trial) $("network-trial").textContent = t("Trying a change: open this page at {at} to keep it.", data.trial);
  if (data.kept) networkResult(t("Kept: this page was reached at {at}.", { at: location.hostname }));
  const last = data.last;
  $("network-last").hidden = !(last && last.outcome !== "done" && last.why);
  if (last && last.why) $("network-last").textContent = t("Last change: {why}", { why: last.why });
}

async function loadNetwork(background = false) {
  const answer = await api("GET", "/staff/api/network", undefined, background);
  if (answer.ok) drawNetwork(answer.data);
}

function changeNetwork(body, at) {
  return ownersAction(() => api("POST", "/staff/api/network", body), () => {
    const link = `${location.protocol}//${at}${location.port ? `:${location.port}` : ""}/staff`;
    networkResult(t("Open this page at {link} within {minutes} min: the change is kept once it is reached there, and goes back by itself otherwise.",
      { link, minutes: TRIAL_MIN }));
  }, networkResult);
}

function wireNetwork() {
  $("desk").append(networkSection());
  $("network-ipv4").addEventListener("submit", (event) => {
    event.preventDefault();
    const manual = $("network-method").value === "manual";
    const value = (id) => (manual ? $(id).value.trim() : "");
    const address = value("network-address");
    changeNetwork({ act: "ipv4", device: $("network-device").value, method: $("network-method").value, address,
      gateway: value("network-gateway"), dns: value("network-dns") }, manual ? address.split("/")[0] : location.hostname);
  });
  $("network-name").addEventListener("submit", (event) => {
    event.preventDefault();
    const name = $("network-host").value.trim();
    changeNetwork({ act: "hostname", name }, `${name}.local`);
  });
  setInterval(() => { if (csrf && !$("desk").hidden) loadNetwork(true); }, 5000);  // at the new address, this keeps the trial
  new MutationObserver(() => { if (csrf && !$("desk").hidden) loadNetwork(true); })
    .observe($("desk"), { attributes: true, attributeFilter: ["hidden"] });  // read once logged in, never before
}

wireNetwork();
