"""Client-layer faults, run by a script the proxy injects into HTML pages.

Importing this package registers the built-in types (`overlay`).
"""

from proxy_addons.client import overlay
from proxy_addons.client.inject import ClientFault, ClientInject

__all__ = ["ClientFault", "ClientInject", "overlay"]
