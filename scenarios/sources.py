"""Where the catalog is read from, without reading it: light enough for a command line that only needs to know
which files a catalog comes from (e.g. to tell whether something derived from them is still current)."""

from pathlib import Path

CATALOG_DIR = Path(__file__).parent / "catalog"


def catalog_files(*roots: Path) -> list[Path]:
    """The files the catalog of `roots` is read from, in reading order: each root that is a file, and every
    *.yaml under each root that is a folder (no roots: the built-in catalog)."""
    return [path for root in roots or (CATALOG_DIR,)
            for path in ([root] if root.is_file() else sorted(root.rglob("*.yaml")))]
