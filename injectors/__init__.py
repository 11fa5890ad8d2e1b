"""Seed- and server-layer faults. Importing this package registers every built-in type.

- `injectors.hookspec`: the hooks a type implements and the objects they receive;
- one module per family (`lookalikes`, `noise`, `ordering`, `renames`, `misinformation`,
  `availability`, `writes`, `reads`, `session`, `concurrency`);
- a family whose mechanism needs a site's records declares a Protocol next to it; each site
  implements the families it supports in `sites/<name>/faults.py` (never here).

The hook points themselves are in `sites.kit.hooks`. Nothing here imports a web framework or names a site.
"""

from injectors import (
    availability,
    concurrency,
    lookalikes,
    misinformation,
    noise,
    ordering,
    reads,
    renames,
    session,
    writes,
)

__all__ = ["availability", "concurrency", "lookalikes", "misinformation", "noise", "ordering", "reads",
           "renames", "session", "writes"]
