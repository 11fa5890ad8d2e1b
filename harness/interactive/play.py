"""`webchaos play`: beat the agent. A small web app on loopback where a person plays a task.

The page lists every task with its instruction and its variants. Start opens an episode like any
agent's (its own proxy port, server state, ledger, HAR, GUI actions and rrweb recording) and
says which proxy to set (with `--launch` and a display, it also opens a headed Chromium already
on the proxy). Done grades it: the episode is stored as `agent: human` in
`runs/play-<time>/episodes/<episode>/` with its `result.json` and `replay.html`, and the run's
`run.json` and `report.html` are rewritten. Beside the person's verdict the page shows how the
agents of a chosen run (any `runs/<id>/` with a `run.json`) did on the same task, variant and
seed, each with its failed checks and a link to its replay.

HTTP API (JSON; every POST must be `application/json`, which a cross-site form cannot send, and
carry no foreign `Origin`):

- `GET /` the page; `GET /api/catalog` tasks, variants and the runs to compare with;
- `POST /api/episodes {"task", "variant": id|null, "seed"}` -> the open episode:
  id, proxy URL, start URL, instruction, a Chromium command line;
- `POST /api/episodes/<id>/done {"compare_run", "answer": text|null, "infeasible": bool}` -> the verdict,
  the replay link, the comparison (an answer box shows for tasks that ask for one);
- `GET /api/compare?run=&task=&variant=&seed=` -> the comparison alone;
- `GET /files/<run>/<episode>/replay.html` a replay page (only that file name is served).
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from aiohttp import web

from harness.agents.base import AgentOutcome
from harness.episodes.manager import EpisodeManager, EpisodeSpec, LiveEpisode, episode_id_for
from harness.reporting.html import write_report
from harness.reporting.replay import REPLAY_NAME, write_replay_quietly
from harness.run.results import AgentInfo, EpisodeResult, RunSummary, write_json_atomic
from harness.run.runner import new_run_id
from harness.services.control_client import ControlClient
from harness.services.oracle_client import OracleClient
from harness.services.processes import Services
from scenarios.answers import MAX_ANSWER_CHARS, Answer
from scenarios.loader import Catalog

log = logging.getLogger(__name__)
HUMAN = "human"
TEMPLATE = Path(__file__).parent / "templates" / "play.html"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$")


@dataclass
class Playing:
    live: LiveEpisode
    spec: EpisodeSpec


def _failed(result: EpisodeResult) -> list[str]:
    verdict = result.verdict
    if verdict is None:
        return [result.error] if result.error else []
    return [c.desc for c in [*verdict.checks, *verdict.negative_checks] if not c.passed]


def _answer_of(body: Any) -> Answer | str | None:
    """The player's answer in Done's body (`answer` text, `infeasible` flag); a string says what is wrong."""
    if not isinstance(body, dict):
        return None
    text, infeasible = body.get("answer"), body.get("infeasible", False)
    if text is not None and (not isinstance(text, str) or len(text) > MAX_ANSWER_CHARS):
        return f"answer: expected text of at most {MAX_ANSWER_CHARS} characters"
    if not isinstance(infeasible, bool):
        return "infeasible: expected true or false"
    text = (text or "").strip() or None
    return Answer(value=text, infeasible=infeasible) if text is not None or infeasible else None


def _summary(result: EpisodeResult, href: str | None) -> dict[str, Any]:
    return {"agent": result.agent, "success": result.success, "score": round(result.score, 3),
            "status": "harness error" if result.error else result.outcome.status, "failed": _failed(result),
            "episode_id": result.episode_id, "replay": href}


class PlayApp:
    def __init__(self, catalog: Catalog, stack: Services, runs_dir: Path, compare_run: str | None = None,
                 launch: bool = False) -> None:
        self.catalog = catalog
        self.launch = launch  # open a headed Chromium on the episode's proxy (needs a display)
        self.stack = stack
        self.runs_dir = runs_dir
        self.compare_run = compare_run
        self.run_id = f"play-{new_run_id()}"
        self.run_dir = runs_dir / self.run_id
        self.summary = RunSummary(run_id=self.run_id, started_at=datetime.now(UTC).isoformat(timespec="seconds"),
                                  planned=0, agents=[AgentInfo(name=HUMAN, kind=HUMAN, browser="proxy")])
        self.playing: dict[str, Playing] = {}
        self.lock = asyncio.Lock()
        self.runner: web.AppRunner | None = None
        self.url = ""
        self._oracle: OracleClient | None = None
        self._control: ControlClient | None = None
        self._manager: EpisodeManager | None = None

    # -- lifecycle --------------------------------------------------------------------

    async def start(self, port: int = 0) -> str:
        self._oracle = OracleClient(self.stack.oracle_url, self.stack.secret)
        self._control = ControlClient(self.stack.control_url, self.stack.secret)
        self._manager = EpisodeManager(self._oracle, self._control)
        app = web.Application(client_max_size=64 * 1024, middlewares=[self._same_origin])
        app.add_routes([
            web.get("/", self.page),
            web.get("/api/catalog", self.catalog_json),
            web.post("/api/episodes", self.open_episode),
            web.post("/api/episodes/{id}/done", self.done),
            web.get("/api/compare", self.compare_json),
            web.get("/files/{run}/{episode}/replay.html", self.replay_file),
        ])
        self.runner = web.AppRunner(app, access_log=None)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", port)
        await site.start()
        bound = self.runner.addresses[0][1]
        self.url = f"http://127.0.0.1:{bound}/"
        return self.url

    async def stop(self) -> None:
        for playing in list(self.playing.values()):
            try:  # an unfinished episode is still graded and kept: it is the person's result so far
                await self._finish(playing, AgentOutcome(status="gave_up"))
            except Exception:
                log.exception("could not close episode %s", playing.live.opened.episode_id)
        if self.runner is not None:
            await self.runner.cleanup()
        if self._oracle is not None:
            await self._oracle.close()
        if self._control is not None:
            await self._control.close()

    @web.middleware
    async def _same_origin(self, request: web.Request, handler: Any) -> web.StreamResponse:
        if request.method == "POST":
            origin = request.headers.get("origin")
            if origin is not None and origin.rstrip("/") != self.url.rstrip("/"):
                return web.json_response({"error": "cross-origin request refused"}, status=403)
            if request.content_type != "application/json":
                return web.json_response({"error": "send application/json"}, status=415)
        response: web.StreamResponse = await handler(request)
        return response

    # -- pages and data ---------------------------------------------------------------

    async def page(self, request: web.Request) -> web.Response:
        return web.Response(text=TEMPLATE.read_text(encoding="utf-8"), content_type="text/html",
                            headers={"cache-control": "no-store"})

    def runs(self) -> list[str]:
        try:
            found = [p.name for p in self.runs_dir.iterdir() if (p / "run.json").is_file() and p.name != self.run_id]
        except OSError:
            return []
        return sorted(found, key=lambda n: (self.runs_dir / n / "run.json").stat().st_mtime, reverse=True)

    async def catalog_json(self, request: web.Request) -> web.Response:
        tasks = []
        for task in sorted(self.catalog.tasks.values(), key=lambda t: (t.site, t.id)):
            tasks.append({
                "id": task.id, "site": task.site, "title": task.title,
                "instruction": re.sub(r"\{[^}]+\}", "…", task.instruction),
                "variants": [{"id": v.id, "title": v.title, "primitive": v.target_primitive.value}
                             for v in self.catalog.variants_for(task.id)],
            })
        runs = self.runs()
        default = self.compare_run if self.compare_run in runs else (runs[0] if runs else None)
        return web.json_response({"tasks": tasks, "runs": runs, "compare_run": default, "play_run": self.run_id})

    async def open_episode(self, request: web.Request) -> web.Response:
        try:
            body = await request.json()
            task = self.catalog.tasks[body["task"]]
            variant_id = body.get("variant")
            variant = self.catalog.variants[variant_id] if variant_id else None
            seed = int(body.get("seed", 1))
        except (ValueError, KeyError, TypeError):
            return web.json_response({"error": "expected {task, variant, seed} of the catalog"}, status=422)
        if variant is not None and variant not in self.catalog.variants_for(task.id):
            return web.json_response({"error": f"variant {variant.id} does not apply to {task.id}"}, status=422)
        launch = self.launch and bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
        spec = EpisodeSpec(task, variant, seed)
        assert self._manager is not None
        async with self.lock:
            index = self.summary.planned
            self.summary.planned += 1
        episode_id = episode_id_for(spec, HUMAN, index)
        live = await LiveEpisode.open(self._manager, spec, episode_id, self.run_dir / "episodes" / episode_id,
                                      agent=HUMAN, cdp=launch, spki_pins=self.stack.spki_pins, headless=False)
        self.playing[episode_id] = Playing(live, spec)
        opened = live.opened
        return web.json_response({
            "episode_id": episode_id, "proxy_url": opened.proxy_url, "start_url": opened.start_url,
            "instruction": opened.instruction, "launched": launch,
            "asks_answer": task.kind in ("answer", "action+answer"),
            "chromium": f"chromium --proxy-server={opened.proxy_url} --user-data-dir=$(mktemp -d) {opened.start_url}",
        }, status=201)

    async def _finish(self, playing: Playing, outcome: AgentOutcome) -> EpisodeResult:
        self.playing.pop(playing.live.opened.episode_id, None)
        result = await playing.live.grade(outcome)
        await asyncio.to_thread(write_replay_quietly, playing.live.opened.out_dir)
        async with self.lock:
            self.summary.episodes.append(result)
            self.summary.finished_at = datetime.now(UTC).isoformat(timespec="seconds")
            write_json_atomic(self.run_dir / "run.json", self.summary)
            try:
                await asyncio.to_thread(write_report, self.summary, self.run_dir)
            except Exception:
                log.exception("could not write the play run's report")
        return result

    async def done(self, request: web.Request) -> web.Response:
        playing = self.playing.pop(request.match_info["id"], None)  # graded once, even on a double click
        if playing is None:
            return web.json_response({"error": "no such open episode"}, status=404)
        try:
            body = await request.json()
        except ValueError:
            body = None
        run = body.get("compare_run") if isinstance(body, dict) else None
        answer = _answer_of(body)
        if isinstance(answer, str):
            self.playing[request.match_info["id"]] = playing  # still open: the player may fix the answer
            return web.json_response({"error": answer}, status=422)
        result = await self._finish(playing, AgentOutcome(status="done", answer=answer))
        spec = playing.spec
        return web.json_response({
            "you": _summary(result, self._href(self.run_id, result.episode_id)),
            "compare_run": run, "agents": self.compare(run, spec.task.id, spec.variant.id if spec.variant else None,
                                                       spec.seed),
        })

    def _href(self, run: str, episode_id: str) -> str | None:
        if (self.runs_dir / run / "episodes" / episode_id / REPLAY_NAME).is_file():
            return f"/files/{run}/{episode_id}/{REPLAY_NAME}"
        return None

    def compare(self, run: str | None, task: str, variant: str | None, seed: int) -> list[dict[str, Any]]:
        if not run or not _NAME.match(run):
            return []
        try:
            summary = RunSummary.model_validate_json((self.runs_dir / run / "run.json").read_bytes())
        except (OSError, ValueError):
            return []
        return [_summary(r, self._href(run, r.episode_id)) for r in summary.episodes
                if r.task_id == task and r.variant_id == variant and r.seed == seed and r.agent != HUMAN]

    async def compare_json(self, request: web.Request) -> web.Response:
        q = request.query
        try:
            seed = int(q.get("seed", "1"))
        except ValueError:
            return web.json_response({"error": "seed: not a number"}, status=422)
        return web.json_response({"agents": self.compare(q.get("run"), q.get("task", ""), q.get("variant") or None,
                                                         seed)})

    async def replay_file(self, request: web.Request) -> web.StreamResponse:
        run, episode = request.match_info["run"], request.match_info["episode"]
        if not _NAME.match(run) or not _NAME.match(episode):
            raise web.HTTPNotFound()
        path = self.runs_dir / run / "episodes" / episode / REPLAY_NAME
        if not path.is_file():
            raise web.HTTPNotFound()
        return web.FileResponse(path, headers={"content-type": "text/html; charset=utf-8"})


async def serve(catalog: Catalog, runs_dir: Path, port: int, compare_run: str | None, launch: bool,
                on_ready: Any = None) -> None:
    """Start the stack and the app; run until cancelled (Ctrl-C), then grade what is still open."""
    async with Services() as stack:
        app = PlayApp(catalog, stack, runs_dir, compare_run, launch=launch)
        url = await app.start(port)
        if on_ready is not None:
            on_ready(url, app)
        try:
            await asyncio.Event().wait()
        finally:
            await app.stop()
