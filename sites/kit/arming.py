"""Server faults armed and disarmed while an episode runs (the oracle's `/episodes/{id}/faults`).

An envelope exactly as in the catalog, server layer only (the checks shared with the proxy:
scenarios/arming.py), and one the site implements. Each arm and disarm is a line of the
episode's site ledger (`detail.control`: `armed` / `disarmed`, never a firing).
"""

from typing import Any

from injectors.hookspec import Firing, ServerFault
from scenarios.arming import ArmError, no_such_fault, parse_runtime_fault
from scenarios.arming import describe as describe_armed
from scenarios.faults import ArmedFault, Layer
from scenarios.ledger import ARMED, DISARMED
from sites.kit.episode import SiteEpisode

__all__ = ["ArmError", "arm_site_fault", "describe", "disarm_site_fault"]


def describe(fault: Firing) -> dict[str, Any]:
    return describe_armed(fault.armed)


def arm_site_fault(episode: SiteEpisode, raw: Any) -> Firing:
    spec, params = parse_runtime_fault(raw, (Layer.server,), episode.id, [f.id for f in episode.injected],
                                       episode.armed_at_runtime)
    assert isinstance(params, ServerFault)
    if not params.implemented_by(episode.implementations):
        raise ArmError(422, f"fault.type: site {episode.site!r} does not implement the server fault type "
                            f"{spec.type!r}")
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
        raise no_such_fault(episode.id, fault_id, [f.id for f in episode.faults_of(Layer.server)], kind="server")
    episode.injected.remove(fault)
    episode.ledger.write("server", fault.armed.spec.type, fault_id=fault.id,
                         detail={"control": DISARMED, "eligible": fault.armed.eligible,
                                 "fired": fault.armed.fired})
    return fault
