"""`webchaos serve`: one stack whose episodes another program opens, grades and closes over loopback HTTP.

For frameworks that cannot import webchaos (BrowserGym pins an older Playwright, so it runs in a venv of
its own: examples/browsergym/). Every request carries the secret the caller handed over at start
(`--secret-fd`, as the stack's own services get theirs: scenarios/secret.py); anything else gets 401.
The stack (sites server + proxy) starts with the first episode; episodes have no browser of their own
(the caller brings one and points it at `proxy_url`).

    GET    /health                      {"ok": true, "stack": started?}
    GET    /catalog                     every (task, base or applicable variant), with its by_default flag
    GET    /suites/<name>               a committed suite: ref, seeds, entries (scenarios/suites.py)
    POST   /episodes                    {"task", "variant"?, "seed"?}  -> 201 the episode (proxy_url, instruction …)
    POST   /episodes/<id>/grade         {"answer"?, "infeasible"?, "status"?} -> the graded result (closed)
    DELETE /episodes/<id>               close without grading (its files are kept)

A malformed request is a 4xx naming what was wrong, never a 500.
"""

from __future__ import annotations

import json
import signal
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from harness.agents.base import AgentOutcome
from harness.api import Episode, Stack, StackThread, WebchaosError
from scenarios.answers import Answer
from scenarios.loader import Catalog, ScenarioError
from scenarios.schema import kind_of
from scenarios.secret import SECRET_HEADER, secret_matches
from scenarios.suites import load_suite

MAX_BODY_BYTES = 64 * 1024
OUTCOME_STATUSES = ("done", "failed", "error", "timeout")


class RequestError(Exception):
    def __init__(self, status: HTTPStatus, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class EpisodeService:
    """The episodes open on one stack, by id; what each route does (HTTP aside, so tests call it as is)."""

    catalog: Catalog
    run_dir: Path
    agent: str = "external"
    stack: Stack = field(init=False)
    _runner: StackThread | None = None  # the started stack, on its own thread
    _episodes: dict[str, Episode] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.stack = Stack(catalog=self.catalog, run_dir=self.run_dir)  # started with the first episode (_runner)

    def _running_stack(self) -> StackThread:
        with self._lock:
            if self._runner is None:
                self._runner = StackThread(self.stack).start()
            return self._runner

    def handle(self, method: str, path: str, body: dict[str, Any] | None) -> tuple[HTTPStatus, Any]:
        parts = [p for p in path.split("?", 1)[0].split("/") if p]
        if method == "GET" and parts == ["health"]:
            return HTTPStatus.OK, {"ok": True, "stack": self._runner is not None}
        if method == "GET" and parts == ["catalog"]:
            return HTTPStatus.OK, self.catalog_entries()
        if method == "GET" and len(parts) == 2 and parts[0] == "suites":
            return HTTPStatus.OK, self.suite(parts[1])
        if method == "POST" and parts == ["episodes"]:
            return HTTPStatus.CREATED, self.open(body or {})
        if method == "POST" and len(parts) == 3 and parts[0] == "episodes" and parts[2] == "grade":
            return HTTPStatus.OK, self.grade(parts[1], body or {})
        if method == "DELETE" and len(parts) == 2 and parts[0] == "episodes":
            return HTTPStatus.OK, self.close(parts[1])
        raise RequestError(HTTPStatus.NOT_FOUND, f"no route {method} {path}")

    def catalog_entries(self) -> dict[str, Any]:
        entries = []
        for task_id in sorted(self.catalog.tasks):
            entries.append({"task": task_id, "variant": None, "by_default": True})
            entries.extend({"task": task_id, "variant": v.id, "by_default": v.by_default}
                           for v in self.catalog.variants_for(task_id))
        return {"entries": entries}

    def suite(self, name: str) -> dict[str, Any]:
        if "/" in name or name.endswith((".yaml", ".yml")):
            raise RequestError(HTTPStatus.BAD_REQUEST, f"suite: a built-in suite's name (core, core@1), got {name!r}")
        try:
            suite = load_suite(name)
        except ScenarioError as exc:
            raise RequestError(HTTPStatus.NOT_FOUND, str(exc)) from exc
        return {"ref": suite.ref, "purpose": suite.purpose, "seeds": suite.seeds,
                "entries": [{"task": e.task, "variant": e.variant} for e in suite.entries]}

    def open(self, body: dict[str, Any]) -> dict[str, Any]:
        task, variant, seed = body.get("task"), body.get("variant"), body.get("seed", 1)
        if not isinstance(task, str):
            raise RequestError(HTTPStatus.BAD_REQUEST, "task: a task id (string) is required")
        if variant is not None and not isinstance(variant, str):
            raise RequestError(HTTPStatus.BAD_REQUEST, "variant: a variant id (string) or null")
        if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
            raise RequestError(HTTPStatus.BAD_REQUEST, f"seed: a non-negative integer, got {seed!r}")
        try:
            self.stack.spec(task, variant, seed)  # unknown ids are the caller's mistake: 400, before anything starts
        except WebchaosError as exc:
            raise RequestError(HTTPStatus.BAD_REQUEST, str(exc)) from exc
        stack = self._running_stack()
        episode = stack.call(self.stack.open(task, variant, seed, cdp=False, agent=self.agent))
        with self._lock:
            self._episodes[episode.id] = episode
        return {"id": episode.id, "task": task, "variant": variant, "seed": seed, "instruction": episode.instruction,
                "start_url": episode.start_url, "proxy_url": episode.proxy_url, "out_dir": str(episode.out_dir),
                "kind": kind_of(episode.task, episode.variant)}

    def _take(self, episode_id: str) -> Episode:
        with self._lock:
            episode = self._episodes.pop(episode_id, None)
        if episode is None:
            raise RequestError(HTTPStatus.NOT_FOUND, f"no open episode {episode_id!r}")
        return episode

    def grade(self, episode_id: str, body: dict[str, Any]) -> dict[str, Any]:
        status = body.get("status", "done")
        if status not in OUTCOME_STATUSES:
            raise RequestError(HTTPStatus.BAD_REQUEST, f"status: one of {', '.join(OUTCOME_STATUSES)}, got {status!r}")
        try:
            answer = Answer(value=body.get("answer"), infeasible=body.get("infeasible", False))
        except ValidationError as exc:
            raise RequestError(HTTPStatus.BAD_REQUEST, "answer: text or a list of texts, infeasible: true|false "
                               f"({exc.errors()[0]['msg']})") from exc
        episode = self._take(episode_id)
        stack = self._running_stack()
        outcome = AgentOutcome(status=status, error=body.get("error") if isinstance(body.get("error"), str) else None)
        result = stack.call(episode.grade(outcome, answer=answer if answer.given else None))
        verdict = result.verdict
        return {"id": episode_id, "success": result.success, "score": result.score,
                "subgoals": [s.model_dump(mode="json") for s in verdict.subgoals] if verdict else [],
                "failures": list(verdict.failures) if verdict else [result.error or "not graded"],
                "out_dir": str(episode.out_dir), "result": result.model_dump(mode="json")}

    def close(self, episode_id: str) -> dict[str, Any]:
        episode = self._take(episode_id)
        self._running_stack().call(episode.close())
        return {"id": episode_id, "closed": True, "out_dir": str(episode.out_dir)}

    def shutdown(self) -> None:
        """Close every open episode (ungraded) and stop the stack."""
        with self._lock:
            open_now, self._episodes = list(self._episodes.values()), {}
            stack, self._runner = self._runner, None
        if stack is None:
            return
        try:
            for episode in open_now:
                stack.call(episode.close())
        finally:
            stack.stop()


def handler_for(service: EpisodeService, secret: str) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "webchaos-serve"

        def log_message(self, format: str, *args: Any) -> None:
            sys.stderr.write(f"webchaos serve: {format % args}\n")

        def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
            if str(code).isdigit() and int(code) >= 400:  # only what went wrong: a run makes many requests
                super().log_request(code, size)

        def _answer(self, status: HTTPStatus, payload: Any) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _serve(self) -> None:
            if not secret_matches(self.headers.get(SECRET_HEADER), secret):
                self._answer(HTTPStatus.UNAUTHORIZED, {"error": f"missing or wrong {SECRET_HEADER} header"})
                return
            try:
                self._answer(*service.handle(self.command, self.path, self._body()))
            except RequestError as exc:
                self._answer(exc.status, {"error": str(exc)})
            except WebchaosError as exc:  # the stack could not do it (e.g. a closed episode)
                self._answer(HTTPStatus.CONFLICT, {"error": str(exc)})

        def _body(self) -> dict[str, Any] | None:
            try:
                length = int(self.headers.get("Content-Length") or 0)
            except ValueError:
                raise RequestError(HTTPStatus.BAD_REQUEST, "Content-Length: not a number") from None
            if length > MAX_BODY_BYTES:
                raise RequestError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"body: at most {MAX_BODY_BYTES} bytes")
            if not length:
                return None
            try:
                body = json.loads(self.rfile.read(length))
            except (ValueError, UnicodeDecodeError) as exc:
                raise RequestError(HTTPStatus.BAD_REQUEST, f"body: not JSON ({exc})") from exc
            if not isinstance(body, dict):
                raise RequestError(HTTPStatus.BAD_REQUEST, "body: a JSON object")
            return body

        def _guarded(self) -> None:
            try:
                self._serve()
            except RequestError as exc:  # raised while reading the body
                self._answer(exc.status, {"error": str(exc)})
            except Exception as exc:  # webchaos itself failed (a service died …): said, not a dropped connection
                self.log_error("%s", repr(exc))
                self._answer(HTTPStatus.INTERNAL_SERVER_ERROR,
                             {"error": f"webchaos failed: {type(exc).__name__}: {exc}"})

        do_GET = do_POST = do_DELETE = _guarded

    return Handler


def serve(service: EpisodeService, secret: str, port: int = 0, *, exit_with_stdin: bool = False,
          announce: Callable[[dict[str, Any]], None] | None = None) -> None:
    """Serve on 127.0.0.1:`port` (0: any free port) until SIGTERM, Ctrl-C or (with `exit_with_stdin`) the end
    of stdin, which a parent that started this process holds: it ends with its parent. `announce` gets
    {"url", "run_dir"} once the port listens (the command prints it as one JSON line)."""
    httpd = ThreadingHTTPServer(("127.0.0.1", port), handler_for(service, secret))
    httpd.daemon_threads = True
    stopping = threading.Event()

    def stop(*_: object) -> None:
        if not stopping.is_set():
            stopping.set()
            threading.Thread(target=httpd.shutdown, daemon=True).start()

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    if exit_with_stdin:
        def stop_at_end_of_stdin() -> None:
            sys.stdin.buffer.read()
            stop()

        threading.Thread(target=stop_at_end_of_stdin, daemon=True).start()
    try:
        if announce is not None:
            announce({"url": f"http://127.0.0.1:{httpd.server_address[1]}", "run_dir": str(service.run_dir)})
        httpd.serve_forever(poll_interval=0.2)
    finally:
        httpd.server_close()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        service.shutdown()
