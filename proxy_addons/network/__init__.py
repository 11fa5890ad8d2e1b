"""Network-layer faults; importing this package registers the built-in types (`latency`)."""

from proxy_addons.network import latency
from proxy_addons.network.engine import FaultContext, NetworkFault, NetworkFaults

__all__ = ["FaultContext", "NetworkFault", "NetworkFaults", "latency"]
