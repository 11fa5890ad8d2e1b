"""Client-layer faults, run by a script the proxy injects into HTML pages, and the GUI-action recorder.

Importing this package registers the built-in types; each family is one module
(its parameters) plus one JS file (its behaviour), see `inject.py`.
"""

from proxy_addons.client import clicks, content, inputs, labels, layout, overlay, visibility
from proxy_addons.client.inject import ClientFault, ClientInject

__all__ = ["ClientFault", "ClientInject", "clicks", "content", "inputs", "labels", "layout", "overlay",
           "visibility"]
