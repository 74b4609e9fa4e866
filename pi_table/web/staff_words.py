"""The staff page's words: its own and the advice for each device, the settings' form fields in
the page's language, the games offered, and a refused setting said in the owner's words.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from ..clues.gate import offered
from ..engine.games import NAMES, described, names
from ..engine.phrase import N_, Phrase, Text
from ..hal.events import is_fault
from ..ui.i18n import say, say_health, translation
from ..ui.orientation import OPERATIVES_SIDE

# --- the words ----------------------------------------------------------------------------

DEVICES = {
    "touch": N_("the touch board"),
    "leds": N_("the LED strip"),
    "screen": N_("the spymaster screen"),
    "buttons": N_("the buttons"),
    "companion": N_("the phones' pages"),
    "journal": N_("the journal"),
    "sound": N_("the sound"),
    "fleet": N_("the fleet's broker"),
}
"""The devices by their name in the table's health, as the page names them."""
ADVICE = {
    "touch": N_("Check the board's USB cable; the table finds the board again by itself."),
    "leds": N_("Check the LED supply and data wire, then restart the service."),
    "screen": N_("Check the screen's cable, then restart the service."),
    "buttons": N_("Check the buttons' wiring ([buttons] in the configuration), then restart the service."),
    "companion": N_("Free the web port or change [web] port, then restart the service."),
    "journal": N_("The disk may be full or read-only: free space, then restart the service."),
    "sound": N_("Check the speaker or amplifier and its cable, and [sound] in the configuration; the game goes on "
                "silent."),
    "fleet": N_("Check the network and [fleet] broker in the configuration; the table plays on and reports later."),
}
ADVICE_ANY = N_("Look at the log below, then restart the service.")
"""What to do about a device that is not working, by the device's name in the table's health."""
OWNER_NEEDED = N_("this needs the owner's passphrase: give it under Owner, then try again")
NOTHING_REFUSED = N_("no settings file is refused: the table runs on its own")
OWNER_NEEDED_KEYS = N_("changing {keys} needs the owner's passphrase: give it under Owner, then save again")
OWNER_UNSET = N_("this needs the owner, and no owner's passphrase is set: sudo pi-table set-owner-passphrase")
WRONG_PASSPHRASE = N_("wrong passphrase")
WRONG_CODE = N_("wrong or expired code: hold both buttons while the table starts for a new one")
"""What the page says when an action needs the owner (``roles``)."""
TEXTS = (
    # the way in
    N_("Staff"),
    N_("Staff PIN"),
    N_("Log in"),
    N_("Log out"),
    N_("No staff PIN is set, so this page does nothing."),
    N_("Set one on the table's computer with: sudo pi-table set-staff-pin"),
    N_("wrong PIN"),
    N_("too many attempts: wait {seconds} s"),
    N_("too many logins at once: try again in a moment"),
    N_("Code shown on the table's screen"),
    N_("Many phones are logging in: ask at the table for the code on its screen to skip the wait."),
    N_("log in first"),
    N_("your session has expired: log in again"),
    N_("the page's security token is missing or wrong: reload the page"),
    N_("no staff PIN is set: sudo pi-table set-staff-pin"),
    # the table
    OPERATIVES_SIDE,
    N_("Devices"),
    N_("Game"),
    N_("ok"),
    N_("New game"),
    N_("Undo"),
    N_("End game"),
    N_("Options"),
    N_("End the game on the table? It stays in the history, unfinished."),
    N_("Deal a new game? The game on the table stays in the history."),
    N_("Undone: the last action is taken back."),
    N_("Ended: the game stays in the history, unfinished, and a new one is dealt."),
    N_("Dealt: a new game of {game}."),
    N_("turn"),
    N_("over"),
    N_("red"),
    N_("blue"),
    *dict.fromkeys(word for name in NAMES for word in described(name).phases.values()),  # the games' phases
    N_("simulated"),
    N_("not fitted"),
    N_("connecting"),
    N_("off"),
    N_("starting"),
    N_("version {version}, up {uptime}"),
    # the history
    N_("History"),
    N_("Export CSV"),
    N_("Export JSON"),
    N_("started"),
    N_("result"),
    N_("moves"),
    N_("duration"),
    N_("words guessed"),
    N_("unfinished"),
    N_("in play"),
    N_("no games yet"),
    # the settings
    N_("At hand"),
    N_("Language"),
    N_("Brightness"),
    N_("Turn timer (s, 0: off)"),
    N_("Volume"),
    N_("Configuration"),
    N_("Save and apply"),
    N_("Saved: the table restarts to apply it and resumes its game."),
    N_("New settings on trial ({keys}): they are kept once the table is healthy on them; if it is not, the last "
       "good ones come back by themselves."),
    N_("The settings changed at {time} ({keys}) were rolled back, and the last good ones are in use: {why}"),
    N_("Saved and applied."),
    N_("Discard the refused file"),
    N_("Discarded: the table restarts on its last good settings."),
    N_("no configuration file: the table runs on its defaults"),
    N_("Log"),
    N_("Refresh"),
    N_("Restart service"),
    N_("Restart the table's service? The game resumes where it was."),
    N_("The service is restarting…"),
    *DEVICES.values(),
    *ADVICE.values(),
    OWNER_NEEDED,  # the owner's parts of the page say so while locked (staff.js's locked), as the table answers
    OWNER_UNSET,
    N_("This needs the owner's passphrase: give it under Owner."),  # an owner's view while locked (ownersView)
)
"""The page's words (its script looks each one up by its English text, ``/staff/words/LANG``)."""


def words(lang: str, more: Iterable[str] = ()) -> dict[str, str]:
    """Every word of the page (and ``more``: its sections') in ``lang``, by its English text."""
    catalogue = translation(lang)
    return {text: catalogue.gettext(text) for text in (*TEXTS, *more)}




def advised(table: dict[str, Any], lang: str) -> list[dict[str, Any]]:
    """Each device's health with what to do about it when it is not working, said in ``lang``:
    the fault's own advice where the table gives one (``advice``, by device), else the device's."""
    health = dict(table.get("health", {}))
    health["journal"] = table.get("journal", "ok")
    fitting = table.get("advice") or {}
    gettext = translation(lang).gettext
    return [{"device": name, "health": say_health(state, lang),
             "advice": (fitting.get(name) or gettext(ADVICE.get(name, ADVICE_ANY))) if is_fault(state) else None}
            for name, state in health.items()]


SPAN = N_("{least} to {most}")
SPAN_OFF = N_("{least} to {most}, or {off}: off")
"""The numbers a setting takes, as its field's hint says them after its unit."""


def form_field(option: dict[str, Any], lang: str) -> dict[str, Any]:
    """A setting as the desk describes it (``Desk.settings``), its words said in ``lang`` and its
    unit and range as one hint: "seconds, 2 to 120"."""
    gettext = translation(lang).gettext
    span, unit = option.get("range"), option.get("unit")
    spanned = None if span is None else gettext(SPAN if span["off"] is None else SPAN_OFF).format(
        least=f"{span['min']:g}", most=f"{span['max']:g}", off=f"{span['off'] or 0:g}")
    return {**option, "label": gettext(option["label"]), "help": gettext(option["help"]),
            "choices": [{**choice, "label": gettext(choice["label"])} for choice in option.get("choices", [])],
            "hint": ", ".join(part for part in (unit and gettext(unit), spanned) if part)}




def dealt_with(game: str) -> tuple[str, ...]:
    """The options the new-game form deals ``game`` with: its rules' options, as its description
    gives them (none for a name no game has: the table refuses the game)."""
    if game not in names():
        return ()
    return tuple(choice.name for choice in described(game).options if choice.rule)




NOT_OFFERED = N_("not yet offered in this language")
"""Beside a game on the new-game form that is not offered in the page's language."""


def games_offered(lang: str) -> list[dict[str, Any]]:
    """The new-game form's games, from their descriptions (``engine.described``): each game the
    menus offer, by its name and its title, with the options it is dealt with (their labels,
    kinds, defaults, the words or the numbers they take), said in ``lang``; a game whose clues the
    table gives, where they are not offered in ``lang`` (``clues.gate``), says so (``not_offered``)."""
    gettext = translation(lang).gettext
    return [{"game": name, "title": gettext(game.title),
             "not_offered": gettext(NOT_OFFERED) if game.table_clues and not offered(lang) else None, "options": [
        {"name": choice.name, "kind": choice.kind, "label": gettext(choice.label), "default": choice.default,
         "choices": [{"value": value, "label": gettext(choice.words.get(value, value))} for value in choice.values],
         "range": None if choice.span is None else {"min": choice.span[0], "max": choice.span[1]}}
        for choice in game.options if choice.rule]}
        for name in names() if (game := described(name)).offered]




def played(games: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The history as the staff list it: a game dealt over before its first move (a new game
    asked twice, an end before anyone played) was never played and is left out; the newest, the
    game in play, and a journal that cannot be read are always listed."""
    return [game for index, game in enumerate(games)
            if index == 0 or game.get("moves") or game.get("over") or "error" in game]




def refused_key(problem: Text, lang: str) -> dict[str, Any]:
    """A problem the checker found in a change, said in ``lang`` (``error``), with the key it
    names and the problem alone, as the form shows it beside that key's field; a problem of no
    one key (the file's, two keys together) has the key None, or the first key with the whole
    sentence beside it."""
    said = say(problem, lang)
    fields = {} if isinstance(problem, str) else dict(problem.fields)
    key = fields.get("key")
    if not isinstance(key, str):
        return {"key": None, "error": said, "problem": said}
    alone = fields.get("problem")
    if "other" in fields or not isinstance(alone, (str, Phrase)):
        return {"key": key, "error": said, "problem": said}
    return {"key": key, "error": said, "problem": say(alone, lang)}


REFUSED_TAKES = N_("{value} refused: it takes {takes}")
REFUSED_BECAUSE = N_("{value} refused: {problem}")
REFUSED_TEXT = N_("refused: {problem}")
REFUSED_TOGETHER = N_("{label} and {other} together: {problem}")
LABELLED = N_("{label}: {refusal}")
ONE_OF = N_("one of {choices}")
"""A refused setting as the owner reads it: by its label, with what it takes (issue 39: the page
said ``.../config.toml: timer.length_s: ...``)."""


def refusal(problem: Text, changes: dict[str, object], options: dict[str, dict[str, Any]], lang: str) -> dict[str, Any]:
    """``refused_key``'s answer (the checker's sentence whole, for scripts and the log) with the
    owner's words: ``said`` beside the setting's field (the value refused and what the setting
    takes, when the form knows it, else the checker's problem), ``whole`` with its label before
    it, and ``label``. A value typed as text is not said back: a URL may hold a password."""
    found = refused_key(problem, lang)
    option = options.get(found["key"] or "")
    if option is None:
        return {**found, "label": None, "said": found["error"], "whole": found["error"]}
    gettext = translation(lang).gettext
    shown = form_field(option, lang)
    fields = {} if isinstance(problem, str) else dict(problem.fields)
    if "other" in fields:
        other = options.get(str(fields["other"]))
        alone = fields.get("problem", "")
        said = gettext(REFUSED_TOGETHER).format(label=shown["label"], problem=say(alone, lang) if isinstance(
            alone, str | Phrase) else found["problem"],
                                                other=form_field(other, lang)["label"] if other else fields["other"])
        return {**found, "label": shown["label"], "said": said, "whole": said}
    value = changes.get(option["key"])
    number = isinstance(value, int | float) and not isinstance(value, bool)
    takes = None
    if shown["choices"] and value not in [choice["value"] for choice in shown["choices"]]:
        takes = gettext(ONE_OF).format(choices=", ".join(choice["label"] for choice in shown["choices"]))
    elif option.get("range") and not (number and _within(option["range"], float(value))):  # type: ignore[arg-type]
        takes = shown["hint"]
    told = json.dumps(value) if number or isinstance(value, bool) else value if shown["choices"] and isinstance(
        value, str) else None
    if takes and told is not None:
        said = gettext(REFUSED_TAKES).format(value=told, takes=takes)
    elif told is not None:
        said = gettext(REFUSED_BECAUSE).format(value=told, problem=found["problem"])
    else:
        said = gettext(REFUSED_TEXT).format(problem=found["problem"])
    return {**found, "label": shown["label"], "said": said,
            "whole": gettext(LABELLED).format(label=shown["label"], refusal=said)}




def _within(span: dict[str, Any], value: float) -> bool:
    return value == span.get("off") or span["min"] <= value <= span["max"]




def labels(keys: Iterable[str], options: dict[str, dict[str, Any]], lang: str) -> list[str]:
    """The settings ``keys`` by their labels in ``lang`` (a key the form does not know, as it is)."""
    gettext = translation(lang).gettext
    return [gettext(options[key]["label"]) if key in options else key for key in keys]
