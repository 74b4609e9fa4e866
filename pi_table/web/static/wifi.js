// The staff page's Wi-Fi section: the network the table is on, the networks in reach, and a Wi-Fi
// joined by the owner, which the table tries and leaves again by itself when it cannot join. Its
// result shows beside its button. A section's script (web/sections/wifi.py): the page loads it
// after staff.js.
import { $, api, csrf, el, formField, ownersAction, resultLine, t, worded } from "./staff.js";

function wifiSection() {
  return el("section", { id: "wifi-section", "aria-labelledby": "wifi-title" },
    worded("h2", "Wi-Fi", { id: "wifi-title" }),
    el("p", { id: "wifi-line" }),
    el("p", { id: "wifi-last", class: "note", hidden: "" }),
    el("form", { id: "wifi-form", class: "stack" },
      ...formField("wifi-ssid", "Network", { list: "wifi-networks", maxlength: "32", autocomplete: "off", required: "" }),
      el("datalist", { id: "wifi-networks" }),
      ...formField("wifi-password", "Wi-Fi password", { type: "password", autocomplete: "off", maxlength: "64" }),
      el("p", { id: "wifi-result", class: "message", role: "status", hidden: "" }),
      worded("button", "Join this Wi-Fi", { type: "submit" })));
}

const wifiResult = resultLine("wifi-result");

function drawWifi(data) {
  const now = data.network;
  $("wifi-line").textContent = !now.known ? t("NetworkManager does not run on this computer: its network is set up elsewhere.")
    : now.hotspot ? t("No network: the table opened its own Wi-Fi.")
      : now.connected ? t("On the network {network}.", { network: now.via }) : t("No network.");
  $("wifi-form").hidden = !now.known;
  $("wifi-networks").replaceChildren(...data.networks.map((seen) => {
    const choice = el("option", { value: seen.ssid });
    choice.textContent = seen.secure ? `${seen.ssid} (${seen.signal}%)` : `${seen.ssid} ${t("(open network)")}`;
    return choice;
  }));
  const last = data.last;
  $("wifi-last").hidden = !(last && last.outcome === "failed" && last.why);
  if (last && last.why) $("wifi-last").textContent = t("Last change: {why}", { why: last.why });
}

async function loadWifi(background = false) {
  const answer = await api("GET", "/staff/api/wifi", undefined, background);
  if (answer.ok) drawWifi(answer.data);
}

function joinWifi(ssid, password) {
  return ownersAction(() => api("POST", "/staff/api/wifi", { ssid, password }), () => {
    $("wifi-password").value = "";
    wifiResult(t("The table joins {ssid}: if this phone loses the page, connect it to {ssid} and scan the table's code again.", { ssid }));
  }, wifiResult);
}

function wireWifi() {
  $("desk").append(wifiSection());
  $("wifi-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const ssid = $("wifi-ssid").value.trim();
    if (ssid && confirm(t("Join {ssid}? The table leaves its network for it; if it cannot join, it goes back by itself.", { ssid }))) {
      joinWifi(ssid, $("wifi-password").value);
    }
  });
  setInterval(() => { if (csrf && !$("desk").hidden) loadWifi(true); }, 10000);
  new MutationObserver(() => { if (csrf && !$("desk").hidden) loadWifi(true); })
    .observe($("desk"), { attributes: true, attributeFilter: ["hidden"] });  // read once logged in, never before
}

wireWifi();
