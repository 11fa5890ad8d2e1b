"""Seed- and server-layer faults. Importing this package registers every built-in type.

- `injectors.hookspec`: the hooks a type implements and the objects they receive;
- one module per family (`lookalikes`, `noise`, `ordering`, `renames`, `misinformation`,
  `availability`, `writes`, `reads`, `session`, `concurrency`);
- `injectors.specialise` and the per-site modules (`injectors.shop`): where a family's
  mechanism meets one site's records.

The hook points themselves are in `sites.kit.hooks`. Nothing here imports a web framework.
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
    shop,
    writes,
)

__all__ = ["availability", "concurrency", "lookalikes", "misinformation", "noise", "ordering", "reads",
           "renames", "session", "shop", "writes"]
