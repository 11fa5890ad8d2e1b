"""Network faults without the harness: apply a fault file to whatever traffic passes.

For people who already use mitmproxy (any mode: regular, reverse, upstream ...)::

    mitmdump -s proxy_addons/standalone.py --set webchaos_faults=faults.yaml \\
        [--set webchaos_seed=7] [--set webchaos_ledger=faults.jsonl]

`faults.yaml` is a YAML list of fault envelopes, or a mapping `{faults: [...]}`;
`layer` may be left out (it defaults to `network`, the only layer that runs here)::

    - type: error_then_success
      match: {host: "api.example.com", path: "/v1/orders*", methods: [POST]}
      params: {status: 503, retry_after_s: 1}
    - type: latency
      match: {path: "/search*"}
      params: {delay_ms: 800, jitter_ms: 200}

There are no episodes, guard or router: every flow is eligible, matched by the
envelopes' `match`; schedules count from when the file was loaded (`window`
start_ms is measured from then) and all draws come from `webchaos_seed`. Each
firing is logged, written to `webchaos_ledger` if set (one JSON line each, as in
an episode's `faults.jsonl`) and kept in `flow.metadata["webchaos"]["faults"]`.
A bad file stops mitmdump at start with the fault's index, field and allowed values.

No stack secret (scenarios/secret.py) is involved: this addon set has no control API and
never talks to the webchaos sites server; it forwards wherever your mitmproxy mode says. To
apply it in front of the webchaos sites, make an episode's proxy port its upstream
(`--mode upstream:http://127.0.0.1:<episode port>`): that proxy adds the secret.
"""

import logging
import os
import sys
from pathlib import Path
from typing import Any

_ROOT = str(Path(__file__).resolve().parent.parent)
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

import yaml  # noqa: E402
from mitmproxy import ctx, exceptions, http  # noqa: E402
from mitmproxy.addonmanager import Loader  # noqa: E402

from proxy_addons.episodes import Episodes, ProxyEpisode, arm_proxy_faults  # noqa: E402
from proxy_addons.ledger import Ledger, marks  # noqa: E402
from proxy_addons.network import NetworkFaults  # noqa: E402
from scenarios.faults import FaultError, Layer  # noqa: E402

logger = logging.getLogger(__name__)

EPISODE_ID = "standalone"


class LoggingLedger(Ledger):
    """A ledger that also logs each line to mitmproxy's event log."""

    def write(self, layer: str, type: str, **kwargs: Any) -> dict[str, Any]:
        line = super().write(layer, type, **kwargs)
        request = line.get("request") or {}
        logger.info(f"webchaos: {line['fault_id']} ({type}) on {request.get('method', '')} "
                    f"{request.get('host', '')}{request.get('path', '')}: {line['detail']}")
        return line


def read_fault_file(path: Path) -> list[Any]:
    """The envelopes of a fault file; `layer` defaults to network."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise FaultError(f"cannot read: {exc.strerror}") from exc
    except yaml.YAMLError as exc:
        raise FaultError(f"not valid YAML: {exc}") from exc
    if isinstance(data, dict) and set(data) == {"faults"}:
        data = data["faults"]
    if data is None:
        return []
    if not isinstance(data, list):
        raise FaultError("expected a list of fault envelopes or a mapping {faults: [...]}")
    out = []
    for index, raw in enumerate(data):
        if isinstance(raw, dict):
            raw = {"layer": "network", **raw}
            if raw["layer"] != Layer.network.value:
                raise FaultError(f"faults[{index}].layer: only network faults run standalone, "
                                 f"not {raw['layer']!r}")
        out.append(raw)
    return out


def load_episode(path: Path, seed: int, ledger_path: Path | None) -> ProxyEpisode:
    """Parse, validate and arm a fault file as one endless pseudo-episode."""
    armed = arm_proxy_faults(read_fault_file(path), seed)
    out_dir = ledger_path.parent if ledger_path else Path.cwd()
    episode = ProxyEpisode(EPISODE_ID, seed, out_dir, 0, armed, ledger_path=ledger_path or Path(os.devnull))
    episode.ledger.close()
    episode.ledger = LoggingLedger(ledger_path or Path(os.devnull), episode.opened_at)
    return episode


class Standalone:
    """Marks every flow as part of the one pseudo-episode so the network engine applies its faults."""

    def __init__(self, episodes: Episodes) -> None:
        self.episodes = episodes

    def load(self, loader: Loader) -> None:
        loader.add_option("webchaos_faults", str, "", "YAML file of network fault envelopes to apply.")
        loader.add_option("webchaos_seed", int, 0, "Seed of every fault draw (same seed, same firings).")
        loader.add_option("webchaos_ledger", str, "", "Append each firing as a JSON line to this file.")

    def configure(self, updated: set[str]) -> None:
        if not updated & {"webchaos_faults", "webchaos_seed", "webchaos_ledger"}:
            return
        old = self.episodes.remove(EPISODE_ID)
        if old is not None:
            old.ledger.close()
        if not ctx.options.webchaos_faults:
            return
        path = Path(ctx.options.webchaos_faults)
        ledger = Path(ctx.options.webchaos_ledger) if ctx.options.webchaos_ledger else None
        try:
            episode = load_episode(path, ctx.options.webchaos_seed, ledger)
        except FaultError as exc:
            raise exceptions.OptionsError(f"webchaos_faults: {path}: {exc}") from exc
        self.episodes.by_id[EPISODE_ID] = episode  # no listener: every flow belongs to it
        logger.info(f"webchaos: {len(episode.faults)} network faults armed from {path} "
                    f"(seed {episode.seed})")

    def requestheaders(self, flow: http.HTTPFlow) -> None:
        if EPISODE_ID in self.episodes.by_id and not flow.response:
            m = marks(flow)
            m.setdefault("site", flow.request.pretty_host.lower())
            m.setdefault("episode", EPISODE_ID)

    def done(self) -> None:
        episode = self.episodes.remove(EPISODE_ID)
        if episode is not None:
            episode.ledger.close()


episodes = Episodes()

addons = [
    Standalone(episodes),
    NetworkFaults(episodes),
]
