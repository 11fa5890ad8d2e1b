"""`webchaos serve`: episodes opened, graded and closed over loopback HTTP by a program that holds the secret
(BrowserGym's venv: examples/browsergym/). Run as a user would: the command in a child process, its secret
through an inherited pipe."""

import json
import os
import secrets
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from harness.cli.main import app
from harness.config import PROJECT_ROOT
from scenarios.secret import SECRET_HEADER

pytestmark = pytest.mark.e2e
DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


@dataclass
class Served:
    url: str
    secret: str
    run_dir: Path
    process: subprocess.Popen[bytes]

    def call(self, method: str, path: str, body: Any = None, *, secret: str | None = None,
             raw: bytes | None = None) -> tuple[int, Any]:
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        headers = {SECRET_HEADER: self.secret if secret is None else secret}
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with DIRECT.open(request, timeout=180) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())


def start_serving(run_dir: Path) -> Served:
    secret = secrets.token_urlsafe(32)
    read_fd, write_fd = os.pipe()
    os.write(write_fd, secret.encode() + b"\n")
    os.close(write_fd)
    process = subprocess.Popen(
        [sys.executable, "-m", "harness.cli.main", "serve", "--secret-fd", str(read_fd), "--run-dir", str(run_dir),
         "--exit-with-stdin", "--agent", "tester"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, pass_fds=(read_fd,), cwd=PROJECT_ROOT)
    os.close(read_fd)
    assert process.stdout is not None
    ready = json.loads(process.stdout.readline())
    assert ready["run_dir"] == str(run_dir)
    return Served(ready["url"], secret, run_dir, process)


def stop_serving(served: Served) -> int:
    assert served.process.stdin is not None
    served.process.stdin.close()
    return served.process.wait(120)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    running = start_serving(tmp_path_factory.mktemp("serve"))
    yield running
    stop_serving(running)


def test_every_route_asks_for_the_secret(served: Served) -> None:
    for method, path in (("GET", "/health"), ("GET", "/catalog"), ("POST", "/episodes")):
        status, body = served.call(method, path, {"task": "shop_add_to_cart"}, secret="")
        assert status == 401 and SECRET_HEADER in body["error"]
        status, _ = served.call(method, path, {"task": "shop_add_to_cart"}, secret="x" * 43)
        assert status == 401
    assert served.call("GET", "/health") == (200, {"ok": True, "stack": False})  # no stack before an episode


def test_the_catalog_and_a_suite(served: Served) -> None:
    status, catalog = served.call("GET", "/catalog")
    assert status == 200
    entries = {(e["task"], e["variant"]) for e in catalog["entries"]}
    assert ("shop_add_to_cart", None) in entries and ("shop_add_to_cart", "shop_cart_latency") in entries
    status, smoke = served.call("GET", "/suites/smoke")
    assert status == 200 and smoke["ref"].startswith("smoke@") and smoke["seeds"]
    assert {"task": "shop_add_to_cart", "variant": None} in smoke["entries"]
    status, missing = served.call("GET", "/suites/nosuch")
    assert status == 404 and "no such suite" in missing["error"]


@pytest.mark.parametrize(("method", "path", "body", "status", "says"), [
    ("POST", "/episodes", {}, 400, "task"),
    ("POST", "/episodes", {"task": "shop_add_to_cart", "seed": "one"}, 400, "seed"),
    ("POST", "/episodes", {"task": "shop_add_to_cart", "variant": 3}, 400, "variant"),
    ("POST", "/episodes", {"task": "no_such_task"}, 400, "unknown task"),
    ("POST", "/episodes", {"task": "shop_add_to_cart", "variant": "mail_archive_overlay"}, 400, "variant"),
    ("POST", "/episodes/0001-nope/grade", {}, 404, "no open episode"),
    ("POST", "/episodes/0001-nope/grade", {"status": "won"}, 400, "status"),
    ("POST", "/episodes/0001-nope/grade", {"answer": {"a": 1}}, 400, "answer"),
    ("DELETE", "/episodes/0001-nope", None, 404, "no open episode"),
    ("GET", "/episodes", None, 404, "no route"),
])
def test_malformed_requests_are_4xx_saying_what(served: Served, method: str, path: str, body: Any, status: int,
                                                says: str) -> None:
    got, answer = served.call(method, path, body)
    assert got == status and says in answer["error"], answer


def test_a_body_that_is_not_json_is_400(served: Served) -> None:
    status, answer = served.call("POST", "/episodes", raw=b"{task:")
    assert status == 400 and "not JSON" in answer["error"]
    status, answer = served.call("POST", "/episodes", raw=b"[1, 2]")
    assert status == 400 and "JSON object" in answer["error"]


def test_an_episode_opened_browsed_through_its_proxy_and_graded(served: Served) -> None:
    status, episode = served.call("POST", "/episodes", {"task": "shop_cheapest_seller", "seed": 2})
    assert status == 201, episode
    assert episode["kind"] == "answer" and episode["seed"] == 2 and episode["id"].endswith("-tester")
    assert Path(episode["out_dir"]).parent.parent == served.run_dir
    # the sites exist only behind the episode's own proxy
    via_proxy = urllib.request.build_opener(urllib.request.ProxyHandler({"http": episode["proxy_url"]}))
    with via_proxy.open(episode["start_url"], timeout=60) as page:
        assert page.status == 200 and b"Cartwheel" in page.read()

    status, graded = served.call("POST", f"/episodes/{episode['id']}/grade", {"answer": "Nobody Sells It Ltd"})
    assert status == 200
    assert graded["success"] is False and graded["score"] < 1 and graded["failures"]
    assert graded["result"]["outcome"]["answer"] == {"value": "Nobody Sells It Ltd", "infeasible": False}
    # the same verdict offline, from the episode folder alone
    regraded = CliRunner().invoke(app, ["grade", "--check", graded["out_dir"]])
    assert regraded.exit_code == 0, regraded.output
    assert json.loads(regraded.output)["score"] == graded["score"]
    # graded once: the episode is gone from the open ones
    assert served.call("POST", f"/episodes/{episode['id']}/grade", {})[0] == 404


def test_an_episode_closed_without_grading_keeps_its_files_and_no_verdict(served: Served) -> None:
    status, episode = served.call("POST", "/episodes", {"task": "shop_add_to_cart", "variant": "shop_cart_latency"})
    assert status == 201
    status, closed = served.call("DELETE", f"/episodes/{episode['id']}")
    assert status == 200 and closed["closed"] is True
    out_dir = Path(episode["out_dir"])
    assert (out_dir / "episode.json").is_file() and not (out_dir / "result.json").exists()
    assert served.call("DELETE", f"/episodes/{episode['id']}")[0] == 404
    with pytest.raises(OSError):  # its proxy port is closed
        urllib.request.build_opener(urllib.request.ProxyHandler({"http": episode["proxy_url"]})).open(
            episode["start_url"], timeout=10)


def test_it_stops_when_its_parent_closes_stdin(tmp_path: Path) -> None:
    running = start_serving(tmp_path)
    assert running.call("GET", "/health")[0] == 200
    assert stop_serving(running) == 0
    with pytest.raises(OSError):
        DIRECT.open(running.url + "/health", timeout=10)


def test_a_secret_fd_that_holds_no_secret_is_an_error(tmp_path: Path) -> None:
    read_fd, write_fd = os.pipe()
    os.write(write_fd, b"short\n")
    os.close(write_fd)
    out = subprocess.run([sys.executable, "-m", "harness.cli.main", "serve", "--secret-fd", str(read_fd)],
                         capture_output=True, text=True, pass_fds=(read_fd,), cwd=PROJECT_ROOT, timeout=120)
    os.close(read_fd)
    assert out.returncode == 2 and "webchaos: error:" in out.stderr and "secret" in out.stderr
