"""Network-layer faults; importing this package registers the built-in types.

One module per family: `latency` and `timing` (patience), `errors`, `lies`. The
engine (`engine.py`) is the one place for matching, scheduling and the ledger.
"""

from proxy_addons.network import errors, latency, lies, timing
from proxy_addons.network.engine import FaultContext, NetworkFault, NetworkFaults

__all__ = ["FaultContext", "NetworkFault", "NetworkFaults", "errors", "latency", "lies", "timing"]
