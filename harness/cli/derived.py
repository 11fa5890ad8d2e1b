"""Values the command line derives from the project's files, kept between runs: computed once, then read back
for as long as every file they derive from holds the same bytes.

A value lives in one file under the user's cache folder ($XDG_CACHE_HOME/webchaos, else ~/.cache/webchaos): a
header line (format, digest of the inputs, digest of the payload) and the payload, JSON. A file whose inputs
changed, that cannot be read, or whose payload does not match its digest is rebuilt; a cache folder that cannot
be written costs only the rebuild next time. Nothing here imports more than the standard library: it is on the
path of commands that must start fast."""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

FORMAT = 1  # bump when the file layout changes


def cache_dir() -> Path:
    """$XDG_CACHE_HOME/webchaos, or ~/.cache/webchaos when it is unset or not absolute (as the XDG spec says)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    return (Path(base) if os.path.isabs(base) else Path.home() / ".cache") / "webchaos"


def python_files(*folders: Path) -> list[Path]:
    """Every *.py under `folders`, in a stable order (bytecode caches left out)."""
    found: list[Path] = []
    for top in folders:
        for folder, subfolders, files in os.walk(top):
            subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
            found += [Path(folder, name) for name in sorted(files) if name.endswith(".py")]
    return found


def distributions() -> list[tuple[str, str]]:
    """Every distribution installed in the site-packages folders on sys.path (its metadata folder's name, which
    holds the version) with its entry points as declared (entry_points.txt; '' when it has none), in sys.path
    order. The folder a script or `python -m` runs from is left out: a checkout's own build metadata there would
    make the same installation look different from one folder to the next. Read straight off the folders:
    importlib.metadata costs more than everything else a fast command does."""
    found: list[tuple[str, str]] = []
    for entry in sys.path:
        if os.path.basename(entry) not in ("site-packages", "dist-packages"):
            continue
        try:
            names = sorted(n for n in os.listdir(entry) if n.endswith((".dist-info", ".egg-info")))
        except OSError:
            continue
        for name in names:
            try:
                declared = Path(entry, name, "entry_points.txt").read_text(errors="replace")
            except OSError:
                declared = ""
            found.append((name, declared))
    return found


def entry_point_modules(group_prefix: str) -> list[str]:
    """The modules named by every installed entry point whose group starts with `group_prefix`."""
    modules: list[str] = []
    for _, declared in distributions():
        group = ""
        for line in declared.splitlines():
            line = line.strip()
            if line.startswith("[") and line.endswith("]"):
                group = line[1:-1].strip()
            elif "=" in line and group.startswith(group_prefix):
                modules.append(line.split("=", 1)[1].split(":", 1)[0].strip())
    return modules


def inputs_digest(files: Iterable[Path], facts: Iterable[str] = ()) -> str:
    """Of `files` (each path and its bytes; a missing or unreadable one as such) and `facts` (anything else a
    value depends on: versions, arguments)."""
    digest = hashlib.sha256(f"format {FORMAT}\0python {sys.version}\0".encode())
    for fact in facts:
        digest.update(fact.encode() + b"\0")
    for path in files:
        try:
            data = path.read_bytes()
        except OSError:
            data = b"\1unreadable"
        digest.update(str(path).encode() + b"\0" + hashlib.sha256(data).digest())
    return digest.hexdigest()


def cache_file(name: str) -> Path:
    return cache_dir() / f"{name}.json"


def read(name: str, inputs: str) -> Any | None:
    """The value stored under `name` for exactly these `inputs`; None when there is none that checks out."""
    try:
        with cache_file(name).open("rb") as stored:
            header = json.loads(stored.readline())
            payload = stored.read()
        if (not isinstance(header, dict) or header.get("format") != FORMAT or header.get("inputs") != inputs
                or header.get("payload") != hashlib.sha256(payload).hexdigest()):
            return None
        return json.loads(payload)
    except (OSError, ValueError, RuntimeError):
        # missing, unreadable, not JSON (a UnicodeDecodeError is a ValueError), or no home folder to look in
        return None


def write(name: str, inputs: str, value: Any) -> None:
    """Store `value` (JSON-able) under `name`, atomically: a reader sees the old file or the new one, whole."""
    payload = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
    header = json.dumps({"format": FORMAT, "inputs": inputs, "payload": hashlib.sha256(payload).hexdigest()})
    try:
        path = cache_file(name)
    except RuntimeError:
        return  # no $XDG_CACHE_HOME and no home folder: nowhere to keep it
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(header.encode() + b"\n" + payload)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        pass  # no cache here (read-only home, full disk): the next run derives the value again


def cached(name: str, inputs: str, derive: Callable[[], Any]) -> Any:
    """The value stored under `name` if it was derived from exactly `inputs`, else `derive()` (stored for the
    next run). An exception from `derive` stores nothing."""
    value = read(name, inputs)
    if value is None:
        value = derive()
        write(name, inputs, value)
    return value
