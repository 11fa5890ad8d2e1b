"""Arming and disarming a fault while an episode runs: the checks both processes share.

A run-time envelope is exactly as in the catalog. The sites server arms server faults (the
oracle's `/episodes/{id}/faults`), the proxy network and client faults (the control API's); seed
faults shape the generated world and are armed only when an episode opens. Each side keeps its own
armed faults and ledger; what an envelope may be, its default id and the errors are here once.
"""

from typing import Any

from scenarios.faults import ArmedFault, FaultError, FaultSpec, FaultType, Layer, parse_fault

# Where an envelope of each run-time layer goes, for the error that sends it there.
_ARMED_AT = {
    Layer.server: "the sites: POST the envelope to the oracle's /episodes/{id}/faults",
    Layer.network: "the proxy: POST the envelope to the control API's /episodes/{id}/faults",
    Layer.client: "the proxy: POST the envelope to the control API's /episodes/{id}/faults",
}


class ArmError(ValueError):
    """A fault that cannot be armed or disarmed here; `status` is the HTTP answer (4xx)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def parse_runtime_fault(raw: Any, here: tuple[Layer, ...], episode_id: str, armed_ids: list[str],
                        armed_at_runtime: int) -> tuple[FaultSpec, FaultType]:
    """Validate one run-time envelope for a process that arms the faults of `here`.

    Without an `id`, the fault is named `<type>@<n>` (the episode's n-th run-time arming).
    Raises `ArmError`: 422 naming the field (a seed fault, a layer armed elsewhere, a bad envelope),
    409 for an id the episode already has (`armed_ids`).
    """
    if not isinstance(raw, dict):
        raise ArmError(422, "fault: expected an envelope (a JSON object with type, layer, match, schedule, …)")
    layer = next((layer for layer in Layer if layer.value == raw.get("layer")), None)
    if layer == Layer.seed:
        raise ArmError(422, "fault.layer: seed faults shape the generated world and are armed only when the "
                            "episode opens (put them in a variant)")
    if layer is not None and layer not in here:
        raise ArmError(422, f"fault.layer: {layer.value} faults are armed at {_ARMED_AT[layer]}")
    envelope = dict(raw)
    if envelope.get("id") is None and isinstance(envelope.get("type"), str):
        envelope["id"] = f"{envelope['type']}@{armed_at_runtime + 1}"
    try:
        spec, params = parse_fault(envelope, 0, here)
    except FaultError as exc:
        raise ArmError(422, str(exc).replace("faults[0]", "fault", 1)) from exc
    assert spec.id is not None
    if spec.id in armed_ids:
        raise ArmError(409, f"fault.id: episode {episode_id!r} already has a fault {spec.id!r}")
    return spec, params


def no_such_fault(episode_id: str, fault_id: str, armed_ids: list[str], kind: str = "") -> ArmError:
    """The 404 of a disarm naming a fault the episode does not have (and the ones it has)."""
    known = ", ".join(armed_ids) or "none"
    return ArmError(404, f"fault_id: episode {episode_id!r} has no {kind + ' ' if kind else ''}fault {fault_id!r} "
                         f"(armed here: {known})")


def describe(armed: ArmedFault) -> dict[str, Any]:
    """An armed fault as the control and oracle APIs list it."""
    return {"fault_id": armed.id, "layer": armed.spec.layer.value, "type": armed.spec.type,
            "active": armed.active, "eligible": armed.eligible, "fired": armed.fired}
