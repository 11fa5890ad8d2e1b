"""The user's files for a task (`Setup.files`): written to the episode's `files/` folder before it starts,
where an agent picks them to upload. Same task, bindings and seed: the same bytes."""

import hashlib
import random
import struct
import zlib
from pathlib import Path
from typing import Any

from grader.bindings import fill
from scenarios.schema import UserFile

IMAGE_SIZE = (160, 120)  # px: a thumbnail-sized photo, a few kB


def write_user_files(folder: Path, files: list[UserFile], bindings: dict[str, Any], seed: int) -> list[Path]:
    """Write `files` (placeholders filled from `bindings`) under `folder`; the paths written."""
    written: list[Path] = []
    for spec in files:
        name = str(fill(spec.name, bindings))
        if Path(name).name != name or name in ("", ".", ".."):
            raise ValueError(f"a user file's name is a plain file name, not {name!r}")
        path = folder / name
        folder.mkdir(parents=True, exist_ok=True)
        if spec.kind == "image":
            if path.suffix.lower() != ".png":
                raise ValueError(f"the user's image file {name!r} is a PNG: its name ends in .png")
            path.write_bytes(png_picture(f"{seed}:{name}"))
        else:
            path.write_text(str(fill(spec.text, bindings)), encoding="utf-8")
        written.append(path)
    return written


def png_picture(key: str, size: tuple[int, int] = IMAGE_SIZE) -> bytes:
    """A PNG of a lit surface with a dark crack across it, drawn from `key` (a photo of damage, say)."""
    rng = random.Random(hashlib.sha256(key.encode()).digest())
    width, height = size
    base = [rng.randint(90, 200) for _ in range(3)]
    crack = [(x, int(height * (0.3 + 0.4 * x / width) + rng.randint(-3, 3))) for x in range(width)]
    rows = []
    for y in range(height):
        row = bytearray([0])  # filter: none
        for x in range(width):
            shade = 1.0 - 0.35 * ((x / width + y / height) / 2)
            pixel = [int(c * shade) for c in base]
            if abs(y - crack[x][1]) <= 1:
                pixel = [30, 30, 30]
            row += bytes(pixel)
        rows.append(bytes(row))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(b"".join(rows), 9)) \
        + _chunk(b"IEND", b"")


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
