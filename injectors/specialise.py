"""Per-site specialisations of a fault family.

A family module holds the mechanism (what is perturbed, how values are drawn, what the ledger
says); the site-dependent part — which collection a noise record goes into, how a look-alike
product is built — is a *specialisation* registered per (family, site) by a site module such
as `injectors/shop.py`:

    @specialise("noise_records", "shop")
    def _noise_orders(world, fault, count): ...

A family asks for `specialisation("noise_records", world.site)`; a site without one makes the
episode fail to open with a clear message (checked when the faults are armed).
"""

from collections.abc import Callable
from typing import Any, TypeVar

from injectors.hookspec import HookUnsupported

_SPECIALISATIONS: dict[tuple[str, str], Any] = {}

T = TypeVar("T")


def specialise(family: str, site: str) -> Callable[[T], T]:
    def register(impl: T) -> T:
        key = (family, site)
        if key in _SPECIALISATIONS and _SPECIALISATIONS[key] is not impl:
            raise ValueError(f"{family!r} is specialised twice for site {site!r}")
        _SPECIALISATIONS[key] = impl
        return impl

    return register


def specialisation(family: str, site: str) -> Any:
    impl = _SPECIALISATIONS.get((family, site))
    if impl is None:
        sites = sorted(s for (f, s) in _SPECIALISATIONS if f == family)
        raise HookUnsupported(
            f"fault type {family!r} has no specialisation for site {site!r}; it supports: {', '.join(sites) or 'none'}"
        )
    return impl


def supports(family: str, site: str) -> bool:
    return (family, site) in _SPECIALISATIONS


def sites_of(family: str) -> list[str]:
    return sorted(s for (f, s) in _SPECIALISATIONS if f == family)
