"""Every site's static files: pages link them by a content-versioned address that the browser keeps without
asking again; any other address of the same file is revalidated (ETag, 304)."""

import hashlib
import re

import pytest

from sites.registry import all_sites
from tests.sites.worlds import client, new_world


@pytest.mark.parametrize("site", sorted(all_sites()))
async def test_pages_link_versioned_files_kept_by_the_browser(site: str) -> None:
    app, _, episode = new_world(site)
    async with client(app, all_sites()[site].host, episode.id) as http:
        page = await http.get("/login")
        linked = re.findall(r'(?:href|src)="(/static/[^"]+)"', page.text)
        assert {url.split("?")[0] for url in linked} == {
            "/static/kit.css", "/static/kit.js", f"/static/{site}.css", f"/static/{site}.js"}
        for url in linked:
            assert re.fullmatch(r"/static/[\w.]+\?v=[0-9a-f]{12}", url), url
            kept = await http.get(url)
            assert kept.status_code == 200 and kept.content
            assert kept.headers["cache-control"] == "public, max-age=31536000, immutable"
            assert url.endswith(hashlib.sha256(kept.content).hexdigest()[:12]), "versioned by its content"
            for other in (url.split("?")[0], url.split("?")[0] + "?v=000000000000"):
                asked = await http.get(other)
                assert asked.headers["cache-control"] == "no-cache" and asked.content == kept.content
                again = await http.get(other, headers={"if-none-match": asked.headers["etag"]})
                assert again.status_code == 304 and again.content == b""

