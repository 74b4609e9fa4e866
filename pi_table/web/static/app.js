// The companion page: one file for every kind of page. It shows what the table sends for this
// page's token (or the public view) and nothing else; it keeps no state of its own.
"use strict";

const match = location.pathname.match(/^\/p\/([A-Za-z0-9_-]+)$/);
const api = match ? `/api/p/${match[1]}` : "/api/public";
const app = document.getElementById("app");
const statusLine = document.getElementById("status");
const renderers = {};

function el(tag, attrs = {}, ...children) {
  // Text goes in as text nodes, never as HTML: names and facts come from players.
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined) continue;  // an attribute left out, e.g. disabled: null
    if (name === "class") node.className = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

async function act(text) {
  // Hands one action to the table; the new view comes back on the event stream.
  const answer = await fetch(`${api}/act`, {
    method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({action: text}),
  });
  const body = await answer.json().catch(() => ({ok: false, error: `the table answered ${answer.status}`}));
  statusLine.textContent = body.ok ? "sent" : body.error;
  statusLine.className = body.ok ? "" : "error";
  lastAct = {step: stepOf(shown), ok: body.ok};
  return body.ok;
}

let lastAct = null;  // the step of this page's last action, and whether the table took it

function stepOf(page) {
  // A Codex page's game, phase and step: what the status line follows.
  const pub = codexPublic(page);
  return pub ? `${page.game_id}/${pub.phase}/${pub.step}` : null;
}

function codexPublic(page) {
  if (!page) return null;
  return page.kind === "codex-seat" ? page.view.public : page.kind === "codex-public" ? page.view : null;
}

function followStep(page) {
  // The status line says the step the game is in; an action's "sent" or refusal stays beside
  // it until the step moves on.
  const pub = codexPublic(page);
  if (!pub) return;
  const same = lastAct && lastAct.step === stepOf(page);
  if (same && !lastAct.ok) return;
  statusLine.textContent = same ? `${stepTitle(pub)} · sent` : stepTitle(pub);
  statusLine.className = "";
}

function grid(board, key, words) {
  // The 5x5 grid from the operatives' side: `board` has "?" for hidden cards; `key`, on the
  // spymaster's page only, says what each one is; `words`, from a simulated table, the card's word.
  return el("div", {class: "grid" + (words ? " words" : ""), "aria-label": "the grid"}, [...board].map((shown, cell) => {
    const letter = key ? key[cell] : shown;
    const classes = ["cell", letter === "?" ? "hidden" : letter === "." ? "dark" : letter];
    if (key && shown !== "?" && shown !== ".") classes.push("shown");
    const mark = letter === "?" ? cell : letter;
    const content = words && letter !== "." ? [el("small", {}, mark), el("span", {class: "word"}, words[cell])] : mark;
    return el("div", {class: classes.join(" "), "data-cell": cell}, content);
  }));
}

function summary(view) {
  const turn = view.turn ? `${view.turn} to play, ${view.phase} phase` : `over: ${view.reason || ""}`;
  return el("p", {id: "summary"},
    // no counts while Deep Undercover's codenames are placed: the key is not drawn yet
    view.remaining ? `${turn} · red ${view.remaining.red} left · blue ${view.remaining.blue} left` : turn,
    view.clue !== null ? ` · clue ${view.clue}` : "");
}

renderers.waiting = () => [el("p", {class: "note"}, "The table is starting.")];
renderers.board = (page) => [summary(page.view), grid(page.view.board, null, page.words)];
renderers.spymaster = (page) => [
  el("p", {class: "note"}, "The key: keep this screen away from the operatives."),
  summary(page.view), grid(page.view.board, page.view.key, page.words),
];

// --- Codex --------------------------------------------------------------------------------------
// A seat's page builds its forms from `legal`, the texts of the actions it may take now, so it
// offers exactly what the table would accept; the table refuses anything else anyway.

const STEP_TITLES = {messages: "Messages", private: "Private turn", discussion: "Discussion", vote: "Vote", truth: "Truth machine"};
const ACTED = {messages: "sent", private: "done", vote: "voted"};
let drafts = {key: null, forms: {}};  // half-filled forms, kept while the page redraws for others' moves
let shown = null;  // the page on screen, drawn again when a choice changes

function draft(form) {
  return drafts.forms[form] || (drafts.forms[form] = {});
}

function redraw() {
  render(shown);
}

function agent(pub, seat) {
  return `${pub.codenames[seat]} (seat ${seat})`;
}

function stepTitle(pub) {
  return pub.step === "over" ? "Game over" : `Phase ${pub.phase}: ${STEP_TITLES[pub.step]}`;
}

function waitingFor(pub) {
  return pub.waiting_for.length ? `Waiting for ${pub.waiting_for.map((seat) => pub.codenames[seat]).join(", ")}.` : "";
}

function choices(form, name, options, heading) {
  // One tap picks one option: large radio buttons whose choice survives a redraw.
  const picked = draft(form)[name];
  const option = ({value, label}) => {
    const input = el("input", {type: "radio", name: `${form}-${name}`, value,
      onchange: () => { draft(form)[name] = value; redraw(); }});
    input.checked = picked === value;
    return el("label", {class: picked === value ? "chip picked" : "chip"}, input, label);
  };
  return el("div", {class: "choices", role: "radiogroup", "aria-label": heading},
    el("span", {class: "heading"}, heading), options.map(option));
}

function actionForm(form, title, button, text, ...fields) {
  // `text` is the action to send once the fields are filled, or null while they are not.
  return el("form", {class: "action", "data-form": form, onsubmit: async (event) => {
    event.preventDefault();
    if (text && await act(text)) delete drafts.forms[form];
  }}, el("h3", {}, title), ...fields, el("button", text ? {type: "submit"} : {type: "submit", disabled: ""}, button));
}

function legalByVerb(legal) {
  const verbs = {};
  for (const text of legal) {
    const [verb, , ...rest] = text.split(" ");
    (verbs[verb] = verbs[verb] || []).push(rest);
  }
  return verbs;
}

function factLabel(identikit, facts) {
  return facts.map((fact) => `${fact}: ${identikit[fact]}`).join(" + ");
}

function sendForm(page, entries) {
  const {identikit, public: pub} = page.view;
  const chosen = draft("send");
  const recipients = [...new Set(entries.map(([to]) => to))];
  const factChoices = [...new Set(entries.map(([, ...facts]) => facts.join(" ")))];
  const text = `send ${page.seat} ${chosen.to} ${chosen.facts}`;
  return actionForm("send", "Send your message", "Send", page.legal.includes(text) ? text : null,
    el("p", {class: "note"}, `Your fragment ${identikit.fragment} always goes; choose who gets it and what to add.`),
    choices("send", "to", recipients.map((seat) => ({value: seat, label: agent(pub, seat)})), "to"),
    choices("send", "facts", factChoices.map((facts) => ({value: facts, label: factLabel(identikit, facts.split(" "))})), "with"));
}

function codeForm(page) {
  // Three boxes in position order; a tap on a fragment fills the next empty box. Any fragment may
  // be typed (one heard in the discussion, say): the table checks the code when all are done.
  const boxes = draft("code");
  const parts = [1, 2, 3].map((n) => (boxes[n] || "").toUpperCase());
  const fill = (fragment) => {
    const empty = [1, 2, 3].find((n) => !boxes[n]);
    if (empty) { boxes[empty] = fragment; redraw(); }
  };
  const complete = parts.every((part) => part.length === 4);
  return actionForm("code", "Enter the code", "Enter the code", complete ? `code ${page.seat} ${parts.join("-")}` : null,
    el("div", {class: "code"}, [1, 2, 3].map((n) => el("label", {},
      el("span", {class: "note"}, `position ${n}`),
      el("input", {value: parts[n - 1], maxlength: "4", autocomplete: "off", autocapitalize: "characters",
        spellcheck: "false", "data-draft": `code-${n}`, "aria-label": `fragment in position ${n}`,
        oninput: (event) => { boxes[n] = event.target.value.toUpperCase(); event.target.value = boxes[n]; redraw(); }})))),
    el("p", {class: "note"}, "Tap the fragments you know, in order:"),
    el("div", {class: "choices"}, page.fragments.map((fragment) =>
      el("button", {type: "button", class: "chip fragment", disabled: parts.includes(fragment) ? "" : null,
        onclick: () => fill(fragment)}, fragment)),
      el("button", {type: "button", class: "chip", onclick: () => { drafts.forms.code = {}; redraw(); }}, "clear")));
}

function blockForm(page, entries) {
  const pub = page.view.public;
  const {target} = draft("block");
  const hacker = page.view.powers.hacker;
  return actionForm("block", "Hacker: block an agent", "Block", target !== undefined ? `block ${page.seat} ${target}` : null,
    el("p", {class: "note"}, "The agent you block cannot enter a code this phase, and is told so.",
      hacker.may_not_block !== null ? ` You blocked ${agent(pub, hacker.may_not_block)} last phase: not again now.` : ""),
    choices("block", "target", entries.map(([seat]) => ({value: seat, label: agent(pub, seat)})), "block"));
}

function profileForm(page, entries) {
  const {message, fact} = draft("profile");
  const inbox = page.view.inbox;
  const numbers = [...new Set(entries.map(([number]) => number))];
  const facts = entries.filter(([number]) => number === message).map(([, asked]) => asked);
  return actionForm("profile", "Profiler: ask about a sender (once per game)", "Ask",
    facts.includes(fact) ? `profile ${page.seat} ${message} ${fact}` : null,
    choices("profile", "message", numbers.map((number) =>
      ({value: number, label: `message ${number}: ${inbox[number - 1].text}`})), "about"),
    facts.length ? choices("profile", "fact", facts.map((asked) => ({value: asked, label: asked})), "ask for") : null);
}

function voteForm(page, entries) {
  const pub = page.view.public;
  const {target, extort} = draft("vote");
  const targets = [...new Set(entries.map(([seat]) => seat))];
  const extortable = entries.filter(([seat, word]) => seat === target && word === "extort").map(([, , fact]) => fact);
  const extorting = extortable.includes(extort);
  return actionForm("vote", "Vote", "Vote",
    target !== undefined ? `vote ${page.seat} ${target}${extorting ? ` extort ${extort}` : ""}` : null,
    el("p", {class: "note"}, "The most voted agent goes to the truth machine."),
    choices("vote", "target", targets.map((seat) => ({value: seat, label: agent(pub, seat)})), "vote for"),
    extortable.length ? [
      el("p", {class: "note"}, "Inquisitore: name the fact the truth machine must reveal if this agent goes there. Once per game; the vote stays public, the fact private."),
      choices("vote", "extort", [{value: "none", label: "no extortion"},
        ...extortable.map((fact) => ({value: fact, label: fact}))], "extort"),
    ] : null);
}

function revealForm(page, entries) {
  const {fact} = draft("reveal");
  const facts = entries.map(([word]) => word);
  return actionForm("reveal", "The truth machine: reveal one fact", "Reveal", facts.includes(fact) ? `reveal ${page.seat} ${fact}` : null,
    el("p", {class: "note"}, page.view.extorting
      ? `An Inquisitore extorts your ${page.view.extorting}: that is what the truth machine reveals.`
      : "You must tell the truth."),
    choices("reveal", "fact", facts.map((word) => ({value: word, label: factLabel(page.view.identikit, [word])})), "reveal"));
}

function identikitCard(page) {
  const me = page.view.identikit;
  const infiltrato = me.faction !== me.true_faction;
  return el("section", {class: `identikit ${me.true_faction}`, "aria-label": "your identikit"},
    el("div", {class: "codename"}, me.codename, el("span", {class: "seat"}, `seat ${page.seat}`)),
    el("div", {}, el("span", {class: `faction ${me.faction}`}, me.faction),
      infiltrato ? [" shown · you belong to ", el("span", {class: `faction ${me.true_faction}`}, me.true_faction)] : null,
      ` · ${me.role} · position ${me.position}`),
    el("div", {}, el("span", {class: "note"}, "fragment "), el("span", {class: "fragment mine"}, me.fragment)),
    infiltrato ? el("p", {class: "note"},
      `Everyone is told ${me.faction}, and so is every fact you give; you hold ${me.true_faction}'s fragment and win with ${me.true_faction}.`) : null);
}

function codeNote(page) {
  // Whether this agent may still try a code, and why not.
  const view = page.view;
  const phase = view.public.phase;
  const leader = view.identikit.role === "leader";
  if (view.attempts.some((attempt) => attempt.phase === phase)) {
    return el("p", {class: "note"}, "You entered a code this phase: it is checked when all six are done.");
  }
  if (view.may_enter_code) {
    return el("p", {class: "note"}, leader ? "As the Leader you may try a code in every phase."
      : "One try per game: a wrong code, or the right fragments out of order, ends your chances.");
  }
  if (view.attempts.some((attempt) => attempt.result === "wrong")) return el("p", {class: "note"}, "Your code was wrong: you cannot try again.");
  return null;
}

function nowCard(page) {
  const view = page.view, pub = view.public, seat = page.seat;
  const verbs = legalByVerb(page.legal);
  const mine = pub.waiting_for.includes(seat);
  const said = [];
  if (pub.step === "messages") {
    said.push(mine ? "Send your fragment and one fact of your identikit to another agent. The table passes it on without your name."
      : `Your message is on its way: all arrive when the six are in. ${waitingFor(pub)}`);
    if (mine && view.identikit.role === "informatore") said.push("As the Informatore you may add a second fact: your role.");
  } else if (pub.step === "private") {
    said.push(mine ? "Your private turn: enter the code, use your power if you have one, then end your turn."
      : `Your private turn is over. ${waitingFor(pub)}`);
  } else if (pub.step === "discussion") {
    said.push(`Talk at the table: say anything, true or false. When the table's timer runs out, you vote.${timeLeft(page)}`);
  } else if (pub.step === "vote") {
    said.push(mine ? "Vote for an agent to send to the truth machine." : `You voted. ${waitingFor(pub)}`);
  } else if (pub.step === "truth") {
    said.push(mine ? "You are at the truth machine." : `${agent(pub, pub.truth)} is at the truth machine.`);
    if (mine && view.extorting) said.push(`An Inquisitore extorts your ${view.extorting}: you have nothing to choose, reveal it.`);
  }
  const forms = [];
  if (verbs.send) forms.push(sendForm(page, verbs.send));
  if (pub.step === "private") forms.push(codeNote(page));
  if (verbs.code) forms.push(codeForm(page));
  if (verbs.block) forms.push(blockForm(page, verbs.block));
  if (verbs.profile) forms.push(profileForm(page, verbs.profile));
  if (verbs.done) {
    forms.push(el("form", {class: "action", "data-form": "done", onsubmit: (event) => { event.preventDefault(); act(`done ${seat}`); }},
      el("button", {type: "submit", class: "done"}, "Done: end my private turn")));
  }
  if (verbs.vote) forms.push(voteForm(page, verbs.vote));
  if (verbs.reveal) forms.push(revealForm(page, verbs.reveal));
  return el("section", {class: mine ? "now mine" : "now"},
    el("h2", {}, stepTitle(pub)), winner(pub), said.map((words) => el("p", {}, words)), forms);
}

function inboxList(view) {
  // This phase's messages open; the earlier ones folded, so a long game's page stays short.
  if (!view.inbox.length) return null;
  const phase = view.public.phase;
  const now = view.inbox.filter((message) => message.phase === phase);
  const before = view.inbox.filter((message) => message.phase !== phase);
  return el("section", {"aria-label": "inbox"}, el("h2", {}, "Messages received"),
    inboxItems(now),
    before.length ? el("details", {class: "earlier"}, el("summary", {}, `${before.length} from earlier phases`),
      inboxItems(before)) : null);
}

function inboxItems(messages) {
  if (!messages.length) return null;
  return el("ol", {class: "inbox"}, messages.map((message) => el("li", {},
      el("span", {class: "fragment"}, message.fragment), " ",
      Object.entries(message.facts).map(([fact, value]) => `${fact} ${value}`).join(", "),
      el("span", {class: "note"}, ` · phase ${message.phase}`),
      message.profiled ? el("div", {class: "note"}, "Profiler: the sender's ",
        Object.entries(message.profiled).map(([fact, value]) => `${fact} is ${value}`)) : null)));
}

function historyList(page) {
  // What this agent did and what the table told it alone (a Profiler's answers are in its inbox).
  const view = page.view, pub = view.public;
  const lines = [];
  for (const message of view.sent) lines.push([message.phase, `you sent ${agent(pub, message.to)}: ${message.text}`]);
  const results = {pending: "sealed until all six are done", wrong: "wrong", right: "right", blocked: "void: a Hacker blocked you"};
  for (const attempt of view.attempts) lines.push([attempt.phase, `your code ${attempt.code}: ${results[attempt.result]}`]);
  for (const phase of view.blocked_in) lines.push([phase, "a Hacker blocked you"]);
  for (const revealed of view.extorted) lines.push([revealed.phase, `an Inquisitore made the truth machine reveal your ${revealed.fact}`]);
  const powers = view.powers;
  for (const block of powers.hacker ? powers.hacker.blocks : []) lines.push([block.phase, `you blocked ${agent(pub, block.target)}`]);
  const outcomes = {named: "named", kept: "another Inquisitore named this agent first: your power is kept",
    missed: "the agent escaped the truth machine: your power is kept", extorted: "extorted"};
  for (const e of powers.inquisitore ? powers.inquisitore.extortions : []) {
    lines.push([e.phase, `you extorted ${agent(pub, e.target)}'s ${e.fact}: ${outcomes[e.outcome]}`]);
  }
  if (!lines.length) return null;
  lines.sort((a, b) => b[0] - a[0]);
  return el("section", {"aria-label": "your actions"}, el("h2", {}, "You"),
    el("ul", {class: "log"}, lines.map(([phase, words]) => el("li", {}, el("span", {class: "note"}, `phase ${phase}: `), words))));
}

function winner(pub) {
  if (!pub.winner) return null;
  return el("div", {class: `winner ${pub.winner}`}, el("strong", {}, `${pub.winner[0].toUpperCase()}${pub.winner.slice(1)} wins`),
    el("p", {class: "note"}, pub.reason));
}

function identikitLine(whole) {
  return [el("span", {class: `faction ${whole.true_faction}`}, whole.true_faction),
    whole.faction !== whole.true_faction ? ` (shows ${whole.faction})` : "",
    ` · ${whole.role} · position ${whole.position} · `, el("span", {class: "fragment"}, whole.fragment)];
}

function agentsTable(pub, folded = false) {
  // Every agent by codename: whether it has acted in this step (never what), and what the truth
  // machine revealed; at the end, every identikit.
  const status = (seat) => {
    if (pub.truth === seat) return "at the truth machine";
    const ballot = pub.ballots.find((b) => b.voter === seat);  // the vote is public as it is cast
    if (ballot) return `votes for ${pub.codenames[ballot.target]}`;
    if (pub.acted.includes(seat)) return ACTED[pub.step];
    return pub.waiting_for.includes(seat) ? "waiting" : "";
  };
  const revealed = (seat) => pub.revelations.filter((r) => r.seat === seat).map((r) => `${r.fact}: ${r.value}`).join(", ");
  const table = el("table", {class: "agents"}, pub.codenames.map((codename, seat) => {
    const whole = pub.identikits && pub.identikits[seat];
    return el("tr", {class: pub.winning_seat === seat ? "won" : ""},
      el("td", {}, el("span", {class: "seat"}, seat), codename),
      el("td", {}, whole ? identikitLine(whole) : revealed(seat)),
      el("td", {class: "status"}, status(seat)));
  }));
  return el("section", {"aria-label": "the agents"}, el("h2", {}, "Agents"),
    folded ? el("details", {}, el("summary", {}, "who has acted, what the truth machine revealed"), table) : table);
}

function voteTally(pub) {
  // The vote going on, ballot by ballot (unless the table seals them), else the last one closed.
  const open = pub.ballots.length ? {phase: pub.phase, ballots: pub.ballots, chosen: null,
    tally: pub.codenames.map((_, seat) => pub.ballots.filter((b) => b.target === seat).length)} : null;
  const vote = open || pub.votes[pub.votes.length - 1];
  if (!vote) return null;
  return el("section", {"aria-label": open ? "the vote so far" : "the last vote"},
    el("h2", {}, open ? `Vote of phase ${vote.phase}, so far` : `Vote of phase ${vote.phase}`),
    el("ul", {class: "tally"}, vote.tally.map((count, seat) => count ? el("li", {},
      `${pub.codenames[seat]}: ${count}`, seat === vote.chosen ? " → truth machine" : "") : null)),
    el("p", {class: "note"}, vote.ballots.map(({voter, target}) => `${pub.codenames[voter]} → ${pub.codenames[target]}`).join(" · ")));
}

function revelations(pub) {
  if (!pub.revelations.length) return null;
  return el("section", {"aria-label": "the truth machine"}, el("h2", {}, "The truth machine"),
    el("ul", {class: "log"}, pub.revelations.map((r) => el("li", {},
      el("span", {class: "note"}, `phase ${r.phase}: `), `${agent(pub, r.seat)}: ${r.fact} ${r.value}`))));
}

function rolesInPlay(pub) {
  return el("p", {class: "note"}, `Roles in play, one per faction: ${pub.roles.join(", ")}.`);
}

function timeLeft(page) {
  // The discussion's time as the table counts it: the table sends every second that passes.
  if (!page.timer) return "";
  const left = page.timer.remaining_s;
  return ` ${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")} left.`;
}

renderers["codex-seat"] = (page) => {
  const stepKey = `${page.game_id}/${page.seat}/${page.view.public.phase}/${page.view.public.step}`;
  if (drafts.key !== stepKey) drafts = {key: stepKey, forms: {}};
  const pub = page.view.public;
  // while this agent has a form to fill, the agents' list is folded: the page stays short
  return [identikitCard(page), nowCard(page), inboxList(page.view), historyList(page),
    voteTally(pub), revelations(pub), agentsTable(pub, pub.waiting_for.includes(page.seat)), rolesInPlay(pub)];
};

renderers["codex-public"] = (page) => {
  const pub = page.view;
  const words = {
    messages: "Each agent sends one message from its phone.",
    private: "Each agent's private turn: codes and powers.",
    discussion: `Talk: say anything, true or false, until the timer runs out.${timeLeft(page)}`,
    vote: "Each agent votes for one to send to the truth machine.",
    truth: pub.truth !== null ? `${agent(pub, pub.truth)} is at the truth machine.` : "",
  };
  return [
    el("section", {class: "now"}, el("h2", {}, stepTitle(pub)), winner(pub), words[pub.step] ? el("p", {}, words[pub.step], " ", waitingFor(pub)) : null),
    agentsTable(pub), voteTally(pub), revelations(pub), rolesInPlay(pub),
  ];
};

function render(page) {
  // Draw the page again; a text box being typed in keeps its focus and caret.
  shown = page;
  const active = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.draft : undefined;
  const caret = active ? document.activeElement.selectionStart : null;
  const draw = renderers[page.kind];
  document.getElementById("title").textContent = page.title || "pi-table";
  const nodes = draw ? draw(page) : [el("p", {class: "error"}, `unknown page ${page.kind}`)];
  app.replaceChildren(...nodes.filter((node) => node !== null));
  followStep(page);
  const again = active && app.querySelector(`[data-draft="${active}"]`);
  if (again) { again.focus(); again.setSelectionRange(caret, caret); }
}

const events = new EventSource(`${api}/events`);
events.onopen = () => { statusLine.textContent = "connected"; statusLine.className = ""; };
events.onmessage = (message) => render(JSON.parse(message.data));
events.addEventListener("gone", (message) => {
  // The token opens nothing now: a new game, or this seat was given a new link (another phone's).
  events.close();
  const replaced = JSON.parse(message.data || "{}").replaced;
  app.replaceChildren(el("p", {class: "hide"}, replaced
    ? "This seat's link was replaced: scan the new code on the table's screen."
    : "This page belonged to a game that has ended. Scan the new code."));
  statusLine.textContent = replaced ? "link replaced" : "game over";
});
events.onerror = () => { statusLine.textContent = "connection lost, trying again…"; statusLine.className = "error"; };
