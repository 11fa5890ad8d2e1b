"""Every site webchaos ships, by name."""

from sites.kit.site import Site


def all_sites() -> dict[str, Site]:
    from sites.shop.site import ShopSite

    sites: list[Site] = [ShopSite()]
    return {site.name: site for site in sites}


def site_hosts() -> list[str]:
    return [site.host for site in all_sites().values()]
