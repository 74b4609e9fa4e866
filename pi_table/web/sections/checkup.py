"""The self-test and the pads' tuning on the staff page, the game paused meanwhile: ``GET``/``POST
/staff/api/selftest`` (``{"act": "start" | "stop"}``) and ``tune`` (``"write"`` too: the suggested
thresholds into the configuration as a trial). ``daemon.checkup`` runs them. docs/cafe/console.md
is the contract.
"""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

from aiohttp import web

from ...engine.phrase import N_, Phrase
from ...ui.i18n import say
from ..auth import Session
from ..roles import Route, staff
from ..staff import Section, log
from ..staff_answers import bad, language
from ..staff_table import StandIn

SELFTEST_ACTS = ("start", "stop")
TUNE_ACTS = ("start", "stop", "write")

TEXTS: tuple[str, ...] = (
    N_("Self-test and pads"),
    N_("The self-test and the tuning pause the game; it resumes where it was when they end."),
    N_("Start the self-test"),
    N_("Tune the pads"),
    N_("Stop and resume the game"),
    N_("Keep the suggested thresholds"),
    N_("The LEDs light one cell after another: watch each one."),
    N_("Hands off the table: measuring each pad at rest."),
    N_("Touch each card once, press each button, tap the screen."),
    N_("Self-test passed."),
    N_("Self-test failed."),
    N_("Still to do: {steps}"),
    N_("card {cell}: touched"),
    N_("card {cell}: not yet"),
    N_("{name}: {delta} (touch {touch}, release {release})"),
    N_("suggested {touch}/{release}"),
    N_("Keep these thresholds? The table restarts to try them, and goes back by itself if it is not healthy."),
    N_("Thresholds written: the table restarts to try them."),
)


class Checkup(Protocol):
    """The self-test and the tuning (``daemon.checkup.Checkup``)."""

    def start_selftest(self) -> Phrase | None:
        """Pause the game and start the self-test (the LED walk, then a touch on each card and
        button); None, or why not."""

    def start_tune(self) -> Phrase | None:
        """Pause the game and stream the pads' readings; None, or why not (no board: a note, not a fault)."""

    def stop(self) -> None:
        """End the self-test or the tuning under way: the game resumes where it was."""

    def selftest_state(self, lang: str) -> dict[str, Any]:
        """``{"running", "busy", "test": {"stage", "passed", "failures", "pads": [{cell, touched}],
        "checks": [{what, done}], "todo"} or None}``, its words in ``lang``."""

    def tune_state(self, lang: str) -> dict[str, Any]:
        """``{"running", "busy", "board", "note", "problem", "message", "pads": [{electrode, cell, name,
        value, baseline, delta, touch, release, peak, noise, suggested, verdict, advice}]}``."""

    def write(self) -> list[Phrase]:
        """The last tuning's suggestions written as a trial, as a change of settings; [] or why not."""


NOT_CONNECTED = Phrase.of("the touch board is not connected: check its USB cable, then start again")
"""The table's refusal while its board is unplugged (``daemon.checkup``), as the stand-in says it."""


class FakeCheckup:
    """A stand-in table whose board is unplugged (tests, the screenshots): the self-test and the
    tuning refused as the table refuses them then, each asked recorded in ``calls``."""

    def __init__(self, calls: list[str]) -> None:
        self.calls = calls

    def start_selftest(self) -> Phrase | None:
        self.calls.append("selftest")
        return NOT_CONNECTED

    def start_tune(self) -> Phrase | None:
        self.calls.append("tune")
        return NOT_CONNECTED

    def stop(self) -> None:
        self.calls.append("stop checkup")

    def selftest_state(self, lang: str) -> dict[str, Any]:
        return {"running": False, "busy": False, "test": None}

    def tune_state(self, lang: str) -> dict[str, Any]:
        return {"running": False, "busy": False, "board": False, "note": None, "problem": None, "message": None,
                "pads": []}

    def write(self) -> list[Phrase]:
        self.calls.append("write thresholds")
        return []


class CheckupSection(Section[Checkup], name="checkup", script="checkup.js", texts=TEXTS):
    """The self-test's and the tuning's routes under ``/staff/api/``, behind the staff page's checks."""

    @classmethod
    def stand_in(cls, table: StandIn) -> Checkup:
        return FakeCheckup(table.calls)

    def routes(self) -> list[Route]:
        return [staff("GET", "/staff/api/selftest", self._selftest),
                staff("POST", "/staff/api/selftest", self._selftest_act),
                staff("GET", "/staff/api/tune", self._tuning),
                staff("POST", "/staff/api/tune", self._tune_act)]

    async def _selftest(self, request: web.Request, session: Session) -> web.Response:
        return web.json_response(await asyncio.to_thread(self.table.selftest_state, language(request)))

    async def _selftest_act(self, request: web.Request, session: Session) -> web.StreamResponse:
        """``{"act": "start"}``: the game paused, the LED walk, then a touch on each card and
        button; ``{"act": "stop"}``: the game back where it was (so does the test's end)."""
        act = await self._act(request, SELFTEST_ACTS)
        if isinstance(act, web.Response):
            return act
        checkup, lang = self.table, language(request)
        problem = await asyncio.to_thread(checkup.start_selftest if act == "start" else checkup.stop)
        if problem is not None:
            return web.json_response({"ok": False, "error": say(problem, lang)}, status=409)
        log.info("staff page: self-test %s from %s", act, request.remote)
        return web.json_response({"ok": True, **await asyncio.to_thread(checkup.selftest_state, lang)})

    async def _tuning(self, request: web.Request, session: Session) -> web.Response:
        return web.json_response(await asyncio.to_thread(self.table.tune_state, language(request)))

    async def _tune_act(self, request: web.Request, session: Session) -> web.StreamResponse:
        """``{"act": "start"}`` (the game paused, the pads' readings streamed), ``"stop"``, or
        ``"write"``: the suggested thresholds into the configuration as a trial, and a restart
        that keeps them only if the table comes back healthy. Without a board: a note, not a fault."""
        act = await self._act(request, TUNE_ACTS)
        if isinstance(act, web.Response):
            return act
        checkup, lang = self.table, language(request)
        state = await asyncio.to_thread(checkup.tune_state, lang)
        if act == "start" and not state["board"]:
            return web.json_response({"ok": True, **state})
        if act == "write":
            problems = await asyncio.to_thread(checkup.write)
            if problems:
                return web.json_response({"ok": False, "error": "\n".join(say(each, lang) for each in problems)},
                                         status=409)
            log.info("staff page: the pads' thresholds written from %s: restarting to try them", request.remote)
            return await self.page.then_restart(request, {"ok": True, "restarting": True})
        problem = await asyncio.to_thread(checkup.start_tune if act == "start" else checkup.stop)
        if problem is not None:
            return web.json_response({"ok": False, "error": say(problem, lang)}, status=409)
        log.info("staff page: the pads' tuning %s from %s", act, request.remote)
        return web.json_response({"ok": True, **await asyncio.to_thread(checkup.tune_state, lang)})

    async def _act(self, request: web.Request, acts: tuple[str, ...]) -> str | web.Response:
        """The body's ``act``, one of ``acts``; else the 400 that says which are."""
        body = await self.page.read_json(request)
        act = body.get("act") if isinstance(body, dict) else None
        if not isinstance(act, str) or act not in acts:
            return bad("expected " + " or ".join(f'{{"act": "{each}"}}' for each in acts))
        return act
