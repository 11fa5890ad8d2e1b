"""Every site's HTTP API fuzzed from its own OpenAPI description with schemathesis (issue 10).

In-process (ASGI transport: no sockets, no proxy), each operation of each site discovered by
`sites.registry` gets `WEBCHAOS_FUZZ_EXAMPLES` generated requests (default 5; valid and invalid
ones), sent to an episode of its own. Asserted for every response:

- no 5xx (schemathesis's `not_a_server_error`);
- it conforms to the schema: a documented status code, the documented content type, and a
  body that validates against the documented schema (`status_code_conformance`,
  `content_type_conformance`, `response_schema_conformance`, `response_headers_conformance`);
- a refused request (4xx) leaves the episode's state bytes exactly as they were (the oracle's
  `state_bytes`, compared before and after).

A longer run: `WEBCHAOS_FUZZ_EXAMPLES=2000 make test PYTEST_ARGS=tests/sites/test_fuzz.py`.
`FUZZ_STATS` keeps counts (requests, operations, statuses) for the summary printed at the end.
"""

import os
from collections import Counter
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from sites.kit.deps import EPISODE_HEADER
from sites.kit.site import WorldSetup
from sites.registry import all_sites
from sites.server import build

# Under pytest-xdist, schemathesis collects one test per site and runs only one operation of each (measured:
# 98 requests over 7 operations instead of 5,038 over 199): `make test` runs this file in a pytest of its own.
pytestmark = pytest.mark.skipif(
    "PYTEST_XDIST_WORKER" in os.environ,
    reason="schemathesis fuzzes only one operation per site under pytest-xdist: run this file without -n")

EXAMPLES = int(os.environ.get("WEBCHAOS_FUZZ_EXAMPLES", "5"))
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance,
          response_headers_conformance]
FUZZ_STATS: Counter[str] = Counter()
# Per episode, its state's bytes after a refused request that left it as it was (a quarter of this file's CPU
# went to reading them, twice a request): the next request's "before", when the episode has had no other since.
UNCHANGED: dict[str, bytes] = {}

PUBLIC, _, STORE = build()


def _schema(site: str) -> Any:
    app = PUBLIC.app.apps[all_sites()[site].host]  # type: ignore[attr-defined]
    schema = schemathesis.openapi.from_dict(app.openapi())
    schema.app = app
    schema.config.generation.update(max_examples=EXAMPLES, deterministic=True, database="none",
                                    no_shrink=EXAMPLES <= 50)
    return schema


def _fuzz(site: str) -> Any:
    schema = _schema(site)

    @schema.parametrize()
    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    def test(case: Any) -> None:
        episode_id = f"fuzz-{site}-{case.operation.method}-{case.operation.path}".replace("/", "_")[:120]
        episode = STORE.get(episode_id) or STORE.create(site=site, task_id="fuzz", seed=7, setup=WorldSetup(),
                                                         episode_id=episode_id)
        # the bytes the last refused request left (the same state: nothing else writes to this episode), else read
        before = UNCHANGED.pop(episode_id, None) or episode.state_bytes()
        response = case.call(headers={EPISODE_HEADER: episode_id}, allow_redirects=False)
        FUZZ_STATS["requests"] += 1
        FUZZ_STATS[f"{site} {case.operation.method.upper()} {case.operation.path}"] += 1
        FUZZ_STATS[f"status {response.status_code // 100}xx"] += 1
        case.validate_response(response, checks=CHECKS)
        if 400 <= response.status_code < 500:
            after = episode.state_bytes()
            assert after == before, (
                f"{case.operation.method.upper()} {case.operation.path} answered {response.status_code} "
                f"but changed the state")
            UNCHANGED[episode_id] = after

    return test


# One test per site, `test_<site>`, each with one case per operation: a new site is fuzzed with no line here.
for _name in all_sites():
    globals()[f"test_{_name}"] = _fuzz(_name)


def test_every_site_is_fuzzed() -> None:
    assert {name for name in all_sites() if callable(globals().get(f"test_{name}"))} == set(all_sites()) != set()


@pytest.fixture(scope="module", autouse=True)
def _report() -> Any:
    yield
    if FUZZ_STATS["requests"]:
        operations = [k for k in FUZZ_STATS if " /" in k]
        statuses = {k: v for k, v in sorted(FUZZ_STATS.items()) if k.startswith("status")}
        print(f"\nfuzz: {FUZZ_STATS['requests']} requests over {len(operations)} operations, {statuses}")
