"""webchaos episodes as BrowserGym environments: one per (task, base or variant).

    import gymnasium as gym
    import webchaos_browsergym

    webchaos_browsergym.register()        # every task and its variants (or register_suite("smoke"))
    env = gym.make("browsergym/webchaos.shop_add_to_cart.shop_cart_latency")
    obs, info = env.reset(seed=1)         # opens the webchaos episode with seed 1: seeded world, own proxy
    obs, reward, terminated, truncated, info = env.step('send_msg_to_user("done")')
    # reward: the grader's score; info["task_info"]: success, score, subgoals, failures, the episode folder

BrowserGym pins an older Playwright than webchaos, so this module runs in a venv of its own
(.venv-browsergym, `make frameworks`) and imports nothing of webchaos: it starts `webchaos serve` (the
project's own venv) as a child process, hands it a fresh secret through an inherited pipe, and opens,
grades and closes episodes over loopback HTTP (harness/interactive/serve.py). The env is BrowserGym's own
`BrowserEnv`, except that its browser context goes through the episode's proxy and its Playwright drives
the system Chromium. (It is an example file, not `webchaos.browsergym`, because BrowserGym's venv cannot
install webchaos: its dependencies bring the newer Playwright; likewise there is no `webchaos[browsergym]`.)
Ids:

    browsergym/webchaos.<task>                 the base task (no faults)
    browsergym/webchaos.<task>.<variant>       a variant; a variant `x@<task>` made for that task is `x`

The agent ends an episode with `send_msg_to_user(text)` (the text is its answer: graded for answer tasks,
ignored for action tasks) or `report_infeasible(reason)` (the answer "the task cannot be done"); then the
episode is graded once: reward = score, terminated = True. An episode reset or closed before that is graded
as it stands, with outcome status "timeout" (its result.json says so), so every episode folder has a verdict.
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import secrets
import shlex
import shutil
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import gymnasium as gym
import playwright
from browsergym.core.env import BrowserEnv
from browsergym.core.task import AbstractBrowserTask

PROJECT_ROOT = Path(__file__).resolve().parents[2]
SECRET_HEADER = "x-webchaos-secret"  # as scenarios/secret.py names it
ID_PREFIX = "webchaos"
SYSTEM_CHROMIUM = "/usr/bin/chromium"
# Debian's headless shell: the same engine at about half the CPU, for an env that shows no window (the shell
# cannot show one; webchaos's own headless runs use it too: harness/config.py).
HEADLESS_SHELL = "/usr/lib/chromium/chromium-headless-shell"


class WebchaosServerError(RuntimeError):
    """`status`: the server's HTTP status (0: it did not answer)."""

    def __init__(self, message: str, status: int = 0) -> None:
        super().__init__(message)
        self.status = status


class WebchaosServer:
    """A `webchaos serve` child process and its client. `command`: how to run webchaos (default: $WEBCHAOS,
    else the project's .venv/bin/webchaos, else `webchaos` on PATH); `run_dir`: where episode folders go."""

    def __init__(self, command: str | None = None, run_dir: str | Path | None = None) -> None:
        self.command = shlex.split(command or os.environ.get("WEBCHAOS") or _default_webchaos())
        self.run_dir = Path(run_dir) if run_dir is not None else None
        self._secret = secrets.token_urlsafe(32)
        self._process: subprocess.Popen[bytes] | None = None
        self.url = ""
        # loopback, never through a proxy the environment may name (HTTP_PROXY)
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    def start(self) -> WebchaosServer:
        read_fd, write_fd = os.pipe()
        os.write(write_fd, self._secret.encode() + b"\n")
        os.close(write_fd)
        argv = [*self.command, "serve", "--secret-fd", str(read_fd), "--exit-with-stdin", "--agent", "browsergym"]
        if self.run_dir is not None:
            argv += ["--run-dir", str(self.run_dir)]
        try:
            self._process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, pass_fds=(read_fd,))
        finally:
            os.close(read_fd)
        assert self._process.stdout is not None
        line = self._process.stdout.readline()
        if not line:
            code = self._process.wait()
            raise WebchaosServerError(f"`{shlex.join(argv)}` exited with status {code} before serving")
        ready = json.loads(line)
        self.url, self.run_dir = ready["url"], Path(ready["run_dir"])
        return self

    def stop(self) -> None:
        """Closing its stdin stops it: open episodes are closed, the stack stopped."""
        if self._process is None:
            return
        process, self._process = self._process, None
        assert process.stdin is not None
        process.stdin.close()
        try:
            process.wait(60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def __enter__(self) -> WebchaosServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def request(self, method: str, path: str, body: dict[str, Any] | None = None, timeout_s: float = 180.0) -> Any:
        if self._process is None:
            raise WebchaosServerError("the webchaos server is not running: start() it first")
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.url + path, data=data, method=method,
                                     headers={SECRET_HEADER: self._secret, "Content-Type": "application/json"})
        try:
            with self._opener.open(req, timeout=timeout_s) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as exc:
            detail = exc.read().decode(errors="replace")
            try:
                detail = json.loads(detail)["error"]
            except (ValueError, KeyError, TypeError):
                pass
            raise WebchaosServerError(f"webchaos serve: {method} {path} -> {exc.code}: {detail}", exc.code) from None

    def entries(self) -> list[dict[str, Any]]:
        """Every (task, base or applicable variant) of the catalog."""
        return list(self.request("GET", "/catalog")["entries"])

    def suite(self, name: str) -> dict[str, Any]:
        return dict(self.request("GET", f"/suites/{name}"))

    def open(self, task: str, variant: str | None, seed: int) -> dict[str, Any]:
        return dict(self.request("POST", "/episodes", {"task": task, "variant": variant, "seed": seed}))

    def grade(self, episode_id: str, *, answer: str | None = None, infeasible: bool = False, status: str = "done",
              error: str | None = None) -> dict[str, Any]:
        return dict(self.request("POST", f"/episodes/{episode_id}/grade",
                                 {"answer": answer, "infeasible": infeasible, "status": status, "error": error}))


def _default_webchaos() -> str:
    own = PROJECT_ROOT / ".venv" / "bin" / "webchaos"
    if own.exists():
        return str(own)
    found = shutil.which("webchaos")
    if found is None:
        raise WebchaosServerError("webchaos not found: set WEBCHAOS to the command that runs it "
                                  "(e.g. /path/to/webchaos/.venv/bin/webchaos)")
    return found


_shared: WebchaosServer | None = None
_shared_lock = threading.Lock()


def shared_server() -> WebchaosServer:
    """One server for the process, started on first use and stopped at exit."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = WebchaosServer(run_dir=os.environ.get("WEBCHAOS_BROWSERGYM_RUN_DIR")).start()
            atexit.register(_shared.stop)
        return _shared


def use_system_chromium(executable: str = SYSTEM_CHROMIUM) -> None:
    """Point BrowserGym's Playwright at the system Chromium. BrowserGym launches two browsers (the page's and
    the chat's) and gives the chat's no executable path, so both are found where Playwright looks for its own
    build: a folder of this venv holding a link to `executable`, named by $PLAYWRIGHT_BROWSERS_PATH. Nothing
    happens when that variable is already set (your own Playwright browsers) or `executable` is missing."""
    if os.environ.get("PLAYWRIGHT_BROWSERS_PATH") or not Path(executable).exists():
        return
    spec = json.loads((Path(playwright.__file__).parent / "driver" / "package" / "browsers.json").read_text())
    revision = next(b["revision"] for b in spec["browsers"] if b["name"] == "chromium")
    browsers = Path(sys.prefix) / "webchaos-playwright-browsers" / Path(executable).name  # one per executable
    link = browsers / f"chromium-{revision}" / "chrome-linux" / "chrome"
    if not link.is_symlink():
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(executable)
    os.environ["PLAYWRIGHT_BROWSERS_PATH"] = str(browsers)


def final_message(chat_messages: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The agent's last word after the goal: a message to the user or an infeasibility report (None: none yet)."""
    last_user = max((i for i, m in enumerate(chat_messages) if m["role"] == "user"), default=-1)
    said = [m for m in chat_messages[last_user + 1:] if m["role"] in ("assistant", "infeasible")]
    if any(m["role"] == "infeasible" for m in said):
        return next(m for m in reversed(said) if m["role"] == "infeasible")
    return said[-1] if said else None


class WebchaosTask(AbstractBrowserTask):
    """One webchaos episode. It is opened when the task is made (in `env.reset(seed)`, before the browser
    starts), so that the env can give the browser context the episode's proxy; `setup` goes to the start URL
    and returns the seeded instruction. `seed` is the webchaos seed (None: 1)."""

    def __init__(self, seed: int | None, task_id: str, variant_id: str | None = None,
                 server: WebchaosServer | None = None) -> None:
        super().__init__(seed)
        self.slow_mo = 0  # BrowserGym's default (1 s per action) is for watching; the faults set their own pace
        self.timeout = 10_000
        self.task_id, self.variant_id = task_id, variant_id
        self.server = server or shared_server()
        self.episode = self.server.open(task_id, variant_id, 1 if seed is None else int(seed))
        self.result: dict[str, Any] | None = None

    @classmethod
    def get_task_id(cls) -> str:
        return ID_PREFIX

    @property
    def proxy_url(self) -> str:
        return str(self.episode["proxy_url"])

    def setup(self, page: Any) -> tuple[str, dict[str, Any]]:
        page.goto(self.episode["start_url"], timeout=30_000)
        return self.episode["instruction"], {key: self.episode[key] for key in ("id", "task", "variant", "seed",
                                                                                  "kind", "out_dir")}

    def validate(self, page: Any, chat_messages: list[dict[str, Any]]) -> tuple[float, bool, str, dict[str, Any]]:
        if self.result is not None:
            return 0.0, True, "", self._info()  # the reward was given once, when graded
        said = final_message(chat_messages)
        if said is None:
            return 0.0, False, "", {}
        if said["role"] == "infeasible":
            self.result = self.server.grade(self.episode["id"], infeasible=True)
        else:
            self.result = self.server.grade(self.episode["id"], answer=said["message"])
        return float(self.result["score"]), True, "", self._info()

    def _info(self) -> dict[str, Any]:
        assert self.result is not None
        return {"success": self.result["success"], "score": self.result["score"],
                "subgoals": self.result["subgoals"], "failures": self.result["failures"],
                "episode_id": self.episode["id"], "episode_dir": self.result["out_dir"]}

    def teardown(self) -> None:
        if self.result is None:
            self.result = self.server.grade(self.episode["id"], status="timeout",
                                            error="the BrowserGym episode ended before the agent's final message")


class WebchaosEnv(BrowserEnv):
    """BrowserGym's env whose browser context goes through the current episode's proxy (the task is made,
    and its episode opened, before the context: `reset` reads `pw_context_kwargs` after making the task)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        headless = kwargs.get("headless", True)
        use_system_chromium(HEADLESS_SHELL if headless and Path(HEADLESS_SHELL).exists() else SYSTEM_CHROMIUM)
        super().__init__(*args, **kwargs)

    @property  # type: ignore[override]
    def pw_context_kwargs(self) -> dict[str, Any]:
        proxy = {"proxy": {"server": self.task.proxy_url}} if isinstance(self.task, WebchaosTask) else {}
        return {**self._given_context_kwargs, **proxy}

    @pw_context_kwargs.setter
    def pw_context_kwargs(self, value: dict[str, Any]) -> None:
        self._given_context_kwargs = dict(value)


def env_id(task: str, variant: str | None) -> str:
    """The gym id (without `browsergym/`): gym ids allow no `@`, and `x@<task>` under its task says `x`."""
    if variant is None:
        return f"{ID_PREFIX}.{task}"
    return f"{ID_PREFIX}.{task}.{variant.removesuffix('@' + task).replace('@', ':')}"


def _make_env(task: str, variant: str | None, server: WebchaosServer | None, **env_kwargs: Any) -> WebchaosEnv:
    return WebchaosEnv(functools.partial(WebchaosTask, task_id=task, variant_id=variant, server=server), **env_kwargs)


_registered: dict[str, tuple[str, str | None]] = {}  # gym id -> (task, variant) it runs


def register_entries(entries: list[dict[str, Any]], server: WebchaosServer | None = None) -> list[str]:
    """Register (task, variant or None) entries; returns their gym ids, in order."""
    ids = []
    for entry in entries:
        name = env_id(entry["task"], entry["variant"])
        full = f"browsergym/{name}"
        episode = (entry["task"], entry["variant"])
        if _registered.setdefault(full, episode) != episode:
            raise ValueError(f"{full} would run both {_registered[full]} and {episode}")
        if full not in gym.registry:
            gym.register(full, entry_point=functools.partial(_make_env, entry["task"], entry["variant"], server),
                         nondeterministic=True)
        ids.append(full)
    return ids


def register(server: WebchaosServer | None = None, *, default_only: bool = False) -> list[str]:
    """Register every task's base and applicable variants (`default_only`: without those marked unfair or
    ineffective); returns the gym ids. Episodes run on `server` (default: the process's shared one)."""
    entries = (server or shared_server()).entries()
    return register_entries([e for e in entries if e["by_default"] or not default_only], server)


def register_suite(name: str, server: WebchaosServer | None = None) -> list[tuple[str, int]]:
    """Register a committed suite's entries (`smoke`, `core@1` …); returns its episodes as (gym id, seed), in the
    suite's order: `env = gym.make(id); env.reset(seed=seed)` runs each."""
    suite = (server or shared_server()).suite(name)
    ids = register_entries(suite["entries"], server)
    return [(env, seed) for seed in suite["seeds"] for env in ids]
