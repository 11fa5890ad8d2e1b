"""Server faults armed and disarmed while an episode runs (the oracle's `/episodes/{id}/faults`).

An envelope exactly as in the catalog, server layer only: network and client faults are armed
at the proxy's control API, seed faults only when an episode opens. Each arm and disarm is a
line of the episode's site ledger (`detail.control`: `armed` / `disarmed`, never a firing).
"""

from typing import Any

from injectors.hookspec import Firing, ServerFault
from scenarios.faults import ArmedFault, FaultError, Layer, parse_fault
from scenarios.ledger import ARMED, DISARMED
from sites.kit.episode import SiteEpisode


class ArmError(ValueError):
    """A fault that cannot be armed or disarmed here; `status` is the HTTP answer (4xx)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def describe(fault: Firing) -> dict[str, Any]:
    armed = fault.armed
    return {"fault_id": armed.id, "layer": armed.spec.layer.value, "type": armed.spec.type,
            "active": armed.active, "eligible": armed.eligible, "fired": armed.fired}


def arm_site_fault(episode: SiteEpisode, raw: Any) -> Firing:
    if not isinstance(raw, dict):
        raise ArmError(422, "fault: expected an envelope (a JSON object with type, layer, match, schedule, …)")
    layer = raw.get("layer")
    if layer == Layer.seed.value:
        raise ArmError(422, "fault.layer: seed faults shape the generated world and are armed only when the "
                            "episode opens (put them in a variant)")
    if layer in (Layer.network.value, Layer.client.value):
        raise ArmError(422, f"fault.layer: {layer} faults are armed at the proxy: POST the envelope to the "
                            "control API's /episodes/{id}/faults")
    envelope = dict(raw)
    if envelope.get("id") is None and isinstance(envelope.get("type"), str):
        envelope["id"] = f"{envelope['type']}@{episode.armed_at_runtime + 1}"
    try:
        spec, params = parse_fault(envelope, 0)
    except FaultError as exc:
        raise ArmError(422, str(exc).replace("faults[0]", "fault", 1)) from exc
    if spec.layer != Layer.server or not isinstance(params, ServerFault):
        raise ArmError(422, f"fault.layer: only server faults are armed at the sites, not {spec.layer.value}")
    if not params.implemented_by(episode.implementations):
        raise ArmError(422, f"fault.type: site {episode.site!r} does not implement the server fault type "
                            f"{spec.type!r}")
    assert spec.id is not None
    if any(f.id == spec.id for f in episode.injected):
        raise ArmError(409, f"fault.id: episode {episode.id!r} already has a fault {spec.id!r}")
    fault = Firing(ArmedFault(spec, params, episode.seed))
    episode.armed_at_runtime += 1
    episode.injected.append(fault)
    episode.ledger.write("server", spec.type, fault_id=fault.id,
                         detail={"control": ARMED, "active": fault.armed.active,
                                 "envelope": spec.model_dump(mode="json", exclude_none=True)})
    return fault


def disarm_site_fault(episode: SiteEpisode, fault_id: str) -> Firing:
    fault = next((f for f in episode.injected if f.id == fault_id), None)
    if fault is None or fault.armed.spec.layer != Layer.server:
        known = ", ".join(f.id for f in episode.faults_of(Layer.server)) or "none"
        raise ArmError(404, f"fault_id: episode {episode.id!r} has no server fault {fault_id!r} "
                            f"(armed here: {known})")
    episode.injected.remove(fault)
    episode.ledger.write("server", fault.armed.spec.type, fault_id=fault.id,
                         detail={"control": DISARMED, "eligible": fault.armed.eligible,
                                 "fired": fault.armed.fired})
    return fault
