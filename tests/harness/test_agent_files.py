"""The reference agent's file steps (harness/agents/actions/files.py) and the user's files an episode gets
(harness/episodes/files.py): uploading one of them, downloading a document and reading it, end to end through
the real proxy and Chromium on the shop's two file tasks."""

import struct
import zlib
from pathlib import Path

import pytest

from harness.agents import ReferenceAgent
from harness.agents.actions.files import _free_path
from harness.episodes.files import png_picture, write_user_files
from harness.episodes.manager import EpisodeSpec
from harness.run.runner import run_matrix
from harness.services.processes import Services
from scenarios.schema import UserFile
from tests.harness.episodes import CATALOG


def test_user_files_are_written_from_the_bindings_and_the_same_bytes_per_seed(tmp_path: Path) -> None:
    files = [UserFile(name="{claim.photo}", kind="image"), UserFile(name="note.txt", kind="text",
                                                                    text="Order {claim.order}")]
    bindings = {"claim": {"photo": "IMG_1234.png", "order": "o1001"}}
    one = write_user_files(tmp_path / "a", files, bindings, seed=3)
    two = write_user_files(tmp_path / "b", files, bindings, seed=3)
    other = write_user_files(tmp_path / "c", files, bindings, seed=4)
    assert [p.name for p in one] == ["IMG_1234.png", "note.txt"]
    assert [p.read_bytes() for p in one] == [p.read_bytes() for p in two]
    assert one[0].read_bytes() != other[0].read_bytes()
    assert one[1].read_text() == "Order o1001"


def test_a_user_image_is_a_valid_png() -> None:
    data = png_picture("1:a.png", size=(20, 10))
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    offset, chunks = 8, {}
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset:offset + 4])
        kind, body = data[offset + 4:offset + 8], data[offset + 8:offset + 8 + length]
        (crc,) = struct.unpack(">I", data[offset + 8 + length:offset + 12 + length])
        assert crc == zlib.crc32(kind + body) & 0xFFFFFFFF
        chunks[kind] = body
        offset += 12 + length
    assert struct.unpack(">II", chunks[b"IHDR"][:8]) == (20, 10)
    assert len(zlib.decompress(chunks[b"IDAT"])) == 10 * (1 + 20 * 3)
    assert set(chunks) == {b"IHDR", b"IDAT", b"IEND"}


@pytest.mark.parametrize(("file", "problem"), [
    (UserFile(name="../escape.txt", kind="text"), "plain file name"),
    (UserFile(name="{name}", kind="image"), "is a PNG"),
])
def test_a_bad_user_file_name_is_refused(tmp_path: Path, file: UserFile, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        write_user_files(tmp_path, [file], {"name": "photo.jpg"}, seed=1)
    assert not list(tmp_path.iterdir())


def test_a_download_gets_a_plain_name_that_does_not_overwrite(tmp_path: Path) -> None:
    first = _free_path(tmp_path, "../../etc/in voice?.html")
    assert first.parent == tmp_path and first.name == "in_voice_.html"
    first.write_text("x")
    assert _free_path(tmp_path, "in voice?.html").name == "in_voice_ (2).html"
    assert _free_path(tmp_path, "..").name == "download"


@pytest.mark.e2e
@pytest.mark.asyncio(loop_scope="module")
async def test_the_reference_agent_uploads_a_users_photo_and_reads_a_downloaded_invoice(
        stack: Services, tmp_path: Path) -> None:
    specs = [EpisodeSpec(CATALOG.tasks[t], None, 1) for t in ("shop_return_damaged_with_photo", "shop_invoice_number")]
    summary, run_dir = await run_matrix(specs, [ReferenceAgent()], runs_dir=tmp_path, stack=stack, concurrency=2,
                                        time_budget_s=90, record_replay=False)
    by_task = {r.task_id: r for r in summary.episodes}
    returned, invoiced = by_task["shop_return_damaged_with_photo"], by_task["shop_invoice_number"]
    assert returned.success and invoiced.success, (returned.outcome.log, invoiced.outcome.log)
    folder = run_dir / "episodes"
    (photo,) = (folder / returned.episode_id / "files").iterdir()
    assert photo.name.endswith(".png") and photo.read_bytes().startswith(b"\x89PNG")
    (invoice,) = (folder / invoiced.episode_id / "downloads").iterdir()
    assert invoice.name.startswith("cartwheel-invoice-") and invoice.suffix == ".html"
    assert invoiced.outcome.answer is not None and invoiced.outcome.answer.value in invoice.read_text()
    assert invoiced.outcome.answer.value in invoice.name  # the number the agent read is the file's own
