// The staff page's self-test and pads' tuning, the game paused meanwhile and resumed where it
// was: the LED walk and a touch on each card and button, or each pad's readings with suggested
// thresholds to keep. A section's script (web/sections/checkup.py): the page loads it after staff.js.
import { $, api, backAfterRestart, el, grid, inPlace, say, section, setText, t, worded } from "./staff.js";

let benchPoll = null;

function benchSection() {
  const button = (id, label, kind = "") => worded("button", label, { id, class: `big ${kind}`.trim() });
  return el("section", { id: "bench-section", "aria-labelledby": "bench-title" },
    worded("h2", "Self-test and pads", { id: "bench-title" }),
    worded("p", "The self-test and the tuning pause the game; it resumes where it was when they end.", { class: "advice" }),
    el("div", { class: "row" }, button("selftest-start", "Start the self-test"), button("tune-start", "Tune the pads"),
      button("bench-stop", "Stop and resume the game", "warn")),
    el("p", { id: "bench-line", role: "status" }),
    el("ul", { id: "bench-checks", class: "checks" }),
    el("ul", { id: "bench-failures", class: "attention" }),
    el("ul", { id: "bench-pads", class: "pads" }),
    button("tune-write", "Keep the suggested thresholds", "warn"));
}

function drawSelftest(state) {
  const test = state.test;
  if (!test) return;
  const stage = { walk: t("The LEDs light one cell after another: watch each one."),
    rest: t("Hands off the table: measuring each pad at rest."),
    checklist: t("Touch each card once, press each button, tap the screen."),
    done: test.passed ? t("Self-test passed.") : t("Self-test failed.") }[test.stage];
  setText($("bench-line"), test.todo.length ? `${stage} ${t("Still to do: {steps}", { steps: test.todo.join(", ") })}` : stage);
  $("bench-line").classList.toggle("bad", test.passed === false);
  $("bench-checks").replaceChildren(...test.checks.map((check) =>
    el("li", { class: check.done ? "done" : "", text: `${check.done ? "✓" : "○"} ${check.what}` })));
  $("bench-failures").replaceChildren(...test.failures.map((failure) => el("li", { text: failure })));
  $("bench-pads").className = "pads grid";
  $("bench-pads").dataset.edge = t("operatives' side");
  if (grid) $("bench-pads").dataset.operatives = grid.operatives;
  $("bench-pads").replaceChildren(...test.pads.map((pad) => inPlace(el("li", { class: pad.touched ? "done" : "",
    "aria-label": t(pad.touched ? "card {cell}: touched" : "card {cell}: not yet", { cell: pad.cell }),
    text: `${pad.cell}${pad.touched ? " ✓" : ""}` }), pad.cell)));
}

function drawTuning(state) {
  if (state.note) { setText($("bench-line"), state.note); return; }
  setText($("bench-line"), state.problem || state.message || "");
  $("bench-line").classList.toggle("bad", Boolean(state.problem));
  $("bench-checks").replaceChildren();
  $("bench-failures").replaceChildren(...state.pads.filter((pad) => !["ok", "untouched"].includes(pad.verdict))
    .map((pad) => el("li", { text: pad.advice })));
  const top = Math.max(16, ...state.pads.map((pad) => Math.max(pad.touch, pad.peak || 0, pad.delta)));
  $("bench-pads").className = "pads bars";
  $("bench-pads").replaceChildren(...state.pads.map((pad) => {
    const line = t("{name}: {delta} (touch {touch}, release {release})", pad)
      + (pad.suggested ? ` · ${t("suggested {touch}/{release}", { touch: pad.suggested[0], release: pad.suggested[1] })}` : "");
    return el("li", {}, el("span", { text: line }),
      el("meter", { min: "0", max: String(top), low: String(pad.release), high: String(pad.touch),
        value: String(Math.max(0, pad.delta)), "aria-label": line }));
  }));
  $("tune-write").hidden = !state.pads.some((pad) => pad.suggested);
}

async function loadBench(background = true) {
  const [selftest, tuning] = await Promise.all([api("GET", "/staff/api/selftest", undefined, background),
    api("GET", "/staff/api/tune", undefined, background)]);
  if (!selftest.ok || !tuning.ok) return;
  const busy = selftest.data.busy;
  $("bench-stop").hidden = !busy;
  $("selftest-start").disabled = $("tune-start").disabled = busy;
  if (tuning.data.running || (!selftest.data.running && $("bench-pads").classList.contains("bars"))) drawTuning(tuning.data);
  else drawSelftest(selftest.data);
  if (!busy) { clearInterval(benchPoll); benchPoll = null; }
}

async function bench(path, act) {
  const answer = await api("POST", path, { act });
  if (!answer.ok) { if (answer.status !== 401) say(answer.data ? answer.data.error : `HTTP ${answer.status}`, true); return; }
  if (path.endsWith("tune") && act === "start") {
    $("bench-pads").className = "pads bars";
    drawTuning(answer.data);
  }
  await loadBench(false);
  if (act === "start" && answer.data.running && !benchPoll) benchPoll = setInterval(loadBench, 1000);
}

$("desk").append(benchSection());
$("tune-write").hidden = true;
$("bench-stop").hidden = true;
$("selftest-start").addEventListener("click", () => { $("bench-pads").className = "pads grid"; bench("/staff/api/selftest", "start"); });
$("tune-start").addEventListener("click", () => bench("/staff/api/tune", "start"));
$("bench-stop").addEventListener("click", () => bench("/staff/api/selftest", "stop"));
$("tune-write").addEventListener("click", async () => {
  if (!confirm(t("Keep these thresholds? The table restarts to try them, and goes back by itself if it is not healthy."))) return;
  const answer = await api("POST", "/staff/api/tune", { act: "write" });
  if (answer.ok) { say(t("Thresholds written: the table restarts to try them.")); backAfterRestart(); }
  else if (answer.status !== 401) say(answer.data ? answer.data.error : `HTTP ${answer.status}`, true);
});
section({ refresh: () => loadBench() });
