// Codex's pages on the phones: a seat's (its agent's own view, its forms) and the public one.
// It adds their renderers and their stage (the phase and step the status line follows) to
// app.js's, which loads first; every text is marked as app.js marks its own.

function codexPublic(page) {
  return page.kind === "codex-seat" ? page.view.public : page.view;
}

readers["codex-public"] = () => [gameTitle("codex"), t("spectators")];
readers["codex-seat"] = (page) => [gameTitle("codex"), t("{codename}, seat {seat}", {codename: page.view.identikit.codename, seat: page.seat})];

stages["codex-seat"] = stages["codex-public"] = (page) => {
  const pub = codexPublic(page);
  return {at: `${page.game_id}/${pub.phase}/${pub.step}`, title: stageTitle(pub)};
};

// A seat's page builds its forms from `legal`, the texts of the actions it may take now, so it
// offers exactly what the table would accept; the table refuses anything else anyway.

const STEP_TITLES = {messages: N_("Messages"), private: N_("Private turn"), discussion: N_("Discussion"),
  vote: N_("Vote"), truth: N_("Truth machine")};
const ACTED = {messages: N_("sent"), private: N_("done"), vote: N_("voted")};
const FACT_WORDS = {codename: N_("codename"), faction: N_("faction"), role: N_("role"), position: N_("position"),
  fragment: N_("fragment")};
const ROLE_TITLES = {hacker: N_("Hacker"), infiltrato: N_("Infiltrato"), informatore: N_("Informatore"),
  inquisitore: N_("Inquisitore"), leader: N_("Leader"), profiler: N_("Profiler")};
let drafts = {key: null, forms: {}};  // half-filled forms, kept while the page redraws for others' moves

function draft(form) {
  return drafts.forms[form] || (drafts.forms[form] = {});
}

function redraw() {
  if (shown) render(shown);
}

function agent(pub, seat) {
  return t("{codename} (seat {seat})", {codename: pub.codenames[seat], seat});
}

function faction(name) {
  return teamWord(name);
}

function fact(name) {
  return t(FACT_WORDS[name]);
}

function factValue(name, value) {
  // A fact's value in words: the faction as its colour, the role by its title.
  return name === "faction" ? faction(value) : name === "role" ? t(ROLE_TITLES[value]) : String(value);
}

function told(facts) {
  // Facts as a message carries them: "position 3, role Hacker".
  return Object.entries(facts).map(([name, value]) => `${fact(name)} ${factValue(name, value)}`).join(", ");
}

function stepTitle(pub) {
  return pub.step === "over" ? t("Game over") : t("Phase {phase}: {step}", {phase: pub.phase, step: t(STEP_TITLES[pub.step])});
}

function stageTitle(pub) {
  // The status line's: the step, or the game's end with who won (the page's heading has the winner beneath it).
  return pub.step === "over" && pub.winner ? t("Game over: the {faction} faction wins", {faction: team(pub.winner)}) : stepTitle(pub);
}

heralds["codex-seat"] = (before, page) => {
  // What the table told this agent since: a message received, a Hacker's block (the phase the
  // status line says).
  const view = page.view, was = before.view;
  const said = view.inbox.slice(was.inbox.length).map((message) =>
    t("Message received: {fragment}, {facts}", {fragment: message.fragment, facts: told(message.facts)}));
  if (view.blocked_in.length > was.blocked_in.length) said.push(capital(t("a Hacker blocked you")));
  return said;
};

function waitingFor(pub) {
  return pub.waiting_for.length ? t("Waiting for {agents}.", {agents: pub.waiting_for.map((seat) => pub.codenames[seat]).join(", ")}) : "";
}

function choices(form, name, options, heading) {
  // One tap picks one option: large radio buttons whose choice survives a redraw.
  const picked = draft(form)[name];
  const option = ({value, label}) => {
    const input = el("input", {type: "radio", name: `${form}-${name}`, value, id: `${form}-${name}-${value}`.replace(/\s+/g, "-"),
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
  }}, el("h3", {}, title), ...fields, el("button", {type: "submit", id: `${form}-submit`, disabled: text ? null : ""}, button));
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
  return facts.map((name) => `${fact(name)}: ${factValue(name, identikit[name])}`).join(" + ");
}

function sendForm(page, entries) {
  const {identikit, public: pub} = page.view;
  const chosen = draft("send");
  const recipients = [...new Set(entries.map(([to]) => to))];
  const factChoices = [...new Set(entries.map(([, ...facts]) => facts.join(" ")))];
  const text = `send ${page.seat} ${chosen.to} ${chosen.facts}`;
  return actionForm("send", t("Send your message"), t("Send"), page.legal.includes(text) ? text : null,
    el("p", {class: "note"}, t("Your fragment {fragment} always goes; choose who gets it and what to add.", {fragment: identikit.fragment})),
    choices("send", "to", recipients.map((seat) => ({value: seat, label: agent(pub, seat)})), t("to")),
    choices("send", "facts", factChoices.map((facts) => ({value: facts, label: factLabel(identikit, facts.split(" "))})), t("with")));
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
  return actionForm("code", t("Enter the code"), t("Enter the code"), complete ? `code ${page.seat} ${parts.join("-")}` : null,
    el("div", {class: "code"}, [1, 2, 3].map((n) => el("label", {},
      el("span", {class: "note"}, t("position {position}", {position: n})),
      el("input", {value: parts[n - 1], maxlength: "4", autocomplete: "off", autocapitalize: "characters", id: `code-${n}`,
        spellcheck: "false", "data-draft": `code-${n}`, "aria-label": t("fragment in position {position}", {position: n}),
        oninput: (event) => { boxes[n] = event.target.value.toUpperCase(); event.target.value = boxes[n]; redraw(); }})))),
    el("p", {class: "note"}, t("Tap the fragments you know, in order:")),
    el("div", {class: "choices"}, page.fragments.map((fragment) =>
      el("button", {type: "button", class: "chip fragment", id: `fragment-${fragment}`, disabled: parts.includes(fragment) ? "" : null,
        onclick: () => fill(fragment)}, fragment)),
      el("button", {type: "button", class: "chip", id: "code-clear", onclick: () => { drafts.forms.code = {}; redraw(); }}, t("clear"))));
}

function blockForm(page, entries) {
  const pub = page.view.public;
  const {target} = draft("block");
  const hacker = page.view.powers.hacker;
  return actionForm("block", t("Hacker: block an agent"), t("Block"), target !== undefined ? `block ${page.seat} ${target}` : null,
    el("p", {class: "note"}, t("The agent you block cannot enter a code this phase, and is told so."),
      hacker.may_not_block !== null ? " " + t("You blocked {agent} last phase: not again now.", {agent: agent(pub, hacker.may_not_block)}) : ""),
    choices("block", "target", entries.map(([seat]) => ({value: seat, label: agent(pub, seat)})), t("block")));
}

function profileForm(page, entries) {
  const {message, fact: asked} = draft("profile");
  const inbox = page.view.inbox;
  const numbers = [...new Set(entries.map(([number]) => number))];
  const facts = entries.filter(([number]) => number === message).map(([, name]) => name);
  return actionForm("profile", t("Profiler: ask about a sender (once per game)"), t("Ask"),
    facts.includes(asked) ? `profile ${page.seat} ${message} ${asked}` : null,
    choices("profile", "message", numbers.map((number) => ({value: number, label: t("message {number}: {fragment} - {facts}",
      {number, fragment: inbox[number - 1].fragment, facts: told(inbox[number - 1].facts)})})), t("about")),
    facts.length ? choices("profile", "fact", facts.map((name) => ({value: name, label: fact(name)})), t("ask for")) : null);
}

function voteForm(page, entries) {
  const pub = page.view.public;
  const {target, extort} = draft("vote");
  const targets = [...new Set(entries.map(([seat]) => seat))];
  const extortable = entries.filter(([seat, verb]) => seat === target && verb === "extort").map(([, , name]) => name);
  const extorting = extortable.includes(extort);
  return actionForm("vote", t("Vote"), t("Vote"),
    target !== undefined ? `vote ${page.seat} ${target}` + (extorting ? ` extort ${extort}` : "") : null,
    el("p", {class: "note"}, t("The most voted agent goes to the truth machine.")),
    choices("vote", "target", targets.map((seat) => ({value: seat, label: agent(pub, seat)})), t("vote for")),
    extortable.length ? [
      el("p", {class: "note"}, t("Inquisitore: name the fact the truth machine must reveal if this agent goes there. Once per game; the vote stays public, the fact private.")),
      choices("vote", "extort", [{value: "none", label: t("no extortion")},
        ...extortable.map((name) => ({value: name, label: fact(name)}))], t("extort")),
    ] : null);
}

function revealForm(page, entries) {
  const {fact: chosen} = draft("reveal");
  const facts = entries.map(([name]) => name);
  return actionForm("reveal", t("The truth machine: reveal one fact"), t("Reveal"), facts.includes(chosen) ? `reveal ${page.seat} ${chosen}` : null,
    el("p", {class: "note"}, page.view.extorting
      ? t("An Inquisitore extorts your {fact}: that is what the truth machine reveals.", {fact: fact(page.view.extorting)})
      : t("You must tell the truth.")),
    choices("reveal", "fact", facts.map((name) => ({value: name, label: factLabel(page.view.identikit, [name])})), t("reveal")));
}

function factionBadge(name) {
  return el("span", {class: `faction ${name}`}, faction(name));
}

function identikitCard(page) {
  const me = page.view.identikit;
  const infiltrato = me.faction !== me.true_faction;
  return el("section", {class: `identikit ${me.true_faction}`, "aria-label": t("your identikit")},
    el("div", {class: "codename"}, me.codename, el("span", {class: "seat"}, t("seat {seat}", {seat: page.seat}))),
    el("div", {}, infiltrato
      ? tn("{shown} shown · you belong to {faction} · {role} · position {position}",
        {shown: factionBadge(me.faction), faction: factionBadge(me.true_faction), role: t(ROLE_TITLES[me.role]), position: me.position})
      : tn("{faction} · {role} · position {position}", {faction: factionBadge(me.faction), role: t(ROLE_TITLES[me.role]), position: me.position})),
    el("div", {}, el("span", {class: "note"}, t("fragment") + " "), el("span", {class: "fragment mine"}, me.fragment)),
    infiltrato ? el("p", {class: "note"},
      t("Everyone is told {shown}, and so is every fact you give; you hold {faction}'s fragment and win with {faction}.",
        {shown: team(me.faction), faction: team(me.true_faction)})) : null);
}

function codeNote(page) {
  // Whether this agent may still try a code, and why not.
  const view = page.view;
  const phase = view.public.phase;
  const leader = view.identikit.role === "leader";
  if (view.attempts.some((attempt) => attempt.phase === phase)) {
    return el("p", {class: "note"}, t("You entered a code this phase: it is checked when all six are done."));
  }
  if (view.may_enter_code) {
    return el("p", {class: "note"}, leader ? t("As the Leader you may try a code in every phase.")
      : t("One try per game: a wrong code, or the right fragments out of order, ends your chances."));
  }
  if (view.attempts.some((attempt) => attempt.result === "wrong")) return el("p", {class: "note"}, t("Your code was wrong: you cannot try again."));
  return null;
}

function nowCard(page) {
  const view = page.view, pub = view.public, seat = page.seat;
  const verbs = legalByVerb(page.legal);
  const mine = pub.waiting_for.includes(seat);
  const said = [];
  if (pub.step === "messages") {
    said.push(mine ? t("Send your fragment and one fact of your identikit to another agent. The table passes it on without your name.")
      : t("Your message is on its way: all arrive when the six are in. {waiting}", {waiting: waitingFor(pub)}));
    if (mine && view.identikit.role === "informatore") said.push(t("As the Informatore you may add a second fact: your role."));
  } else if (pub.step === "private") {
    said.push(mine ? t("Your private turn: enter the code, use your power if you have one, then end your turn.")
      : t("Your private turn is over. {waiting}", {waiting: waitingFor(pub)}));
  } else if (pub.step === "discussion") {
    said.push(t("Talk at the table: say anything, true or false. When the table's timer runs out, you vote.") + timeLeft(page));
  } else if (pub.step === "vote") {
    said.push(mine ? t("Vote for an agent to send to the truth machine.") : t("You voted. {waiting}", {waiting: waitingFor(pub)}));
  } else if (pub.step === "truth") {
    said.push(mine ? t("You are at the truth machine.") : t("{agent} is at the truth machine.", {agent: agent(pub, pub.truth)}));
    if (mine && view.extorting) {
      said.push(t("An Inquisitore extorts your {fact}: you have nothing to choose, reveal it.", {fact: fact(view.extorting)}));
    }
  }
  const forms = [];
  if (verbs.send) forms.push(sendForm(page, verbs.send));
  if (pub.step === "private") forms.push(codeNote(page));
  if (verbs.code) forms.push(codeForm(page));
  if (verbs.block) forms.push(blockForm(page, verbs.block));
  if (verbs.profile) forms.push(profileForm(page, verbs.profile));
  if (verbs.done) {
    forms.push(el("form", {class: "action", "data-form": "done", onsubmit: (event) => { event.preventDefault(); act(`done ${seat}`); }},
      el("button", {type: "submit", class: "done", id: "done-submit"}, t("Done: end my private turn"))));
  }
  if (verbs.vote) forms.push(voteForm(page, verbs.vote));
  if (verbs.reveal) forms.push(revealForm(page, verbs.reveal));
  return el("section", {class: mine ? "now mine" : "now"},
    el("h2", {tabindex: "-1"}, stepTitle(pub)), winner(pub), said.map((text) => el("p", {}, text.trim())), forms);
}

function inboxList(view) {
  // This phase's messages open; the earlier ones folded, so a long game's page stays short.
  if (!view.inbox.length) return null;
  const phase = view.public.phase;
  const now = view.inbox.filter((message) => message.phase === phase);
  const before = view.inbox.filter((message) => message.phase !== phase);
  return el("section", {"aria-label": t("inbox")}, el("h2", {}, t("Messages received")),
    inboxItems(now),
    before.length ? el("details", {class: "earlier"}, el("summary", {}, t("earlier phases: {count}", {count: before.length})),
      inboxItems(before)) : null);
}

function inboxItems(messages) {
  if (!messages.length) return null;
  return el("ol", {class: "inbox"}, messages.map((message) => el("li", {},
      el("span", {class: "fragment"}, message.fragment), " ", told(message.facts),
      el("span", {class: "note"}, " · " + t("phase {phase}", {phase: message.phase})),
      message.profiled ? el("div", {class: "note"}, Object.entries(message.profiled).map(([name, value]) =>
        t("Profiler: the sender's {fact} is {value}", {fact: fact(name), value: factValue(name, value)}))) : null)));
}

const RESULTS = {pending: N_("sealed until all six are done"), wrong: N_("wrong"), right: N_("right"),
  blocked: N_("void: a Hacker blocked you")};
const OUTCOMES = {named: N_("named"), kept: N_("another Inquisitore named this agent first: your power is kept"),
  missed: N_("the agent escaped the truth machine: your power is kept"), extorted: N_("extorted")};

function historyList(page) {
  // What this agent did and what the table told it alone (a Profiler's answers are in its inbox).
  const view = page.view, pub = view.public;
  const lines = [];
  for (const message of view.sent) {
    lines.push([message.phase, t("you sent {agent}: {facts}", {agent: agent(pub, message.to), facts: told(message.facts)})]);
  }
  for (const attempt of view.attempts) {
    lines.push([attempt.phase, t("your code {code}: {result}", {code: attempt.code, result: t(RESULTS[attempt.result])})]);
  }
  for (const phase of view.blocked_in) lines.push([phase, t("a Hacker blocked you")]);
  for (const revealed of view.extorted) {
    lines.push([revealed.phase, t("an Inquisitore made the truth machine reveal your {fact}", {fact: fact(revealed.fact)})]);
  }
  const powers = view.powers;
  for (const block of powers.hacker ? powers.hacker.blocks : []) lines.push([block.phase, t("you blocked {agent}", {agent: agent(pub, block.target)})]);
  for (const e of powers.inquisitore ? powers.inquisitore.extortions : []) {
    lines.push([e.phase, t("you extorted {agent}'s {fact}: {outcome}", {agent: agent(pub, e.target), fact: fact(e.fact), outcome: t(OUTCOMES[e.outcome])})]);
  }
  if (!lines.length) return null;
  lines.sort((a, b) => b[0] - a[0]);
  return el("section", {"aria-label": t("your actions")}, el("h2", {}, t("You")),
    el("ul", {class: "log"}, lines.map(([phase, text]) => el("li", {}, el("span", {class: "note"}, t("phase {phase}: ", {phase})), text))));
}

function winner(pub) {
  if (!pub.winner) return null;
  return el("div", {class: `winner ${pub.winner}`}, el("strong", {}, capital(t("{faction} wins", {faction: team(pub.winner)}))),
    el("p", {class: "note"}, pub.reason));
}

function identikitLine(whole) {
  const fill = {faction: factionBadge(whole.true_faction), shown: faction(whole.faction), role: t(ROLE_TITLES[whole.role]),
    position: whole.position, fragment: el("span", {class: "fragment"}, whole.fragment)};
  return whole.faction !== whole.true_faction
    ? tn("{faction} (shows {shown}) · {role} · position {position} · {fragment}", fill)
    : tn("{faction} · {role} · position {position} · {fragment}", fill);
}

function agentsTable(pub, folded = false) {
  // Every agent by codename: whether it has acted in this step (never what), and what the truth
  // machine revealed; at the end, every identikit.
  const status = (seat) => {
    if (pub.truth === seat) return t("at the truth machine");
    const ballot = pub.ballots.find((b) => b.voter === seat);  // the vote is public as it is cast
    if (ballot) return t("votes for {agent}", {agent: pub.codenames[ballot.target]});
    if (pub.acted.includes(seat)) return t(ACTED[pub.step]);
    return pub.waiting_for.includes(seat) ? t("waiting") : "";
  };
  const revealed = (seat) => pub.revelations.filter((r) => r.seat === seat).map((r) => `${fact(r.fact)}: ${factValue(r.fact, r.value)}`).join(", ");
  const table = el("table", {class: "agents"}, pub.codenames.map((codename, seat) => {
    const whole = pub.identikits && pub.identikits[seat];
    return el("tr", {class: pub.winning_seat === seat ? "won" : ""},
      el("td", {}, el("span", {class: "seat"}, seat), codename),
      el("td", {}, whole ? identikitLine(whole) : revealed(seat)),
      ...(pub.identikits ? [] : [el("td", {class: "status"}, status(seat))]));  // at the end, nobody acts: two columns
  }));
  return el("section", {"aria-label": t("the agents")}, el("h2", {}, t("Agents")),
    folded ? el("details", {}, el("summary", {}, t("who has acted, what the truth machine revealed")), table) : table);
}

function voteTally(pub) {
  // The vote going on, ballot by ballot (unless the table seals them), else the last one closed.
  const open = pub.ballots.length ? {phase: pub.phase, ballots: pub.ballots, chosen: null,
    tally: pub.codenames.map((_, seat) => pub.ballots.filter((b) => b.target === seat).length)} : null;
  const vote = open || pub.votes[pub.votes.length - 1];
  if (!vote) return null;
  return el("section", {"aria-label": open ? t("the vote so far") : t("the last vote")},
    el("h2", {}, open ? t("Vote of phase {phase}, so far", {phase: vote.phase}) : t("Vote of phase {phase}", {phase: vote.phase})),
    el("ul", {class: "tally"}, vote.tally.map((count, seat) => count ? el("li", {},
      `${pub.codenames[seat]}: ${count}`, seat === vote.chosen ? " → " + t("truth machine") : "") : null)),
    el("p", {class: "note"}, vote.ballots.map(({voter, target}) => `${pub.codenames[voter]} → ${pub.codenames[target]}`).join(" · ")));
}

function revelations(pub) {
  if (!pub.revelations.length) return null;
  return el("section", {"aria-label": t("the truth machine")}, el("h2", {}, t("The truth machine")),
    el("ul", {class: "log"}, pub.revelations.map((r) => el("li", {},
      el("span", {class: "note"}, t("phase {phase}: ", {phase: r.phase})),
      `${agent(pub, r.seat)}: ${fact(r.fact)} ${factValue(r.fact, r.value)}`))));
}

function rolesInPlay(pub) {
  return el("p", {class: "note"}, t("Roles in play, one per faction: {roles}.", {roles: pub.roles.map((role) => t(ROLE_TITLES[role])).join(", ")}));
}

function timeLeft(page) {
  // The discussion's time as the table counts it: the table sends every second that passes.
  if (!page.timer) return "";
  const left = page.timer.remaining_s;
  return " " + t("{time} left.", {time: `${number(Math.floor(left / 60))}:${number(left % 60, {minimumIntegerDigits: 2})}`});
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
  const steps = {
    messages: () => t("Each agent sends one message from its phone."),
    private: () => t("Each agent's private turn: codes and powers."),
    discussion: () => t("Talk: say anything, true or false, until the timer runs out.") + timeLeft(page),
    vote: () => t("Each agent votes for one to send to the truth machine."),
    truth: () => pub.truth !== null ? t("{agent} is at the truth machine.", {agent: agent(pub, pub.truth)}) : "",
  };
  const said = steps[pub.step] ? steps[pub.step]() : "";
  return [
    el("section", {class: "now"}, el("h2", {}, stepTitle(pub)), winner(pub), said ? el("p", {}, said, " ", waitingFor(pub)) : null),
    agentsTable(pub), voteTally(pub), revelations(pub), rolesInPlay(pub),
  ];
};
