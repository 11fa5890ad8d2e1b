"""The kit's upload check, which seven sites' upload routes call: the bytes of a good file, and each refusal's
status (the sites' tests and the fuzz test hold the routes to these)."""

import base64
from typing import Any

import pytest
from fastapi import HTTPException

from sites.kit.uploads import PNG, decoded_upload, sha256_hex


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def refusal(data_b64: str, content_type: str = "image/png", **kw: Any) -> tuple[int, str]:
    with pytest.raises(HTTPException) as refused:
        decoded_upload(data_b64, name="a.png", content_type=content_type, max_bytes=1024, **kw)
    return refused.value.status_code, str(refused.value.detail)


def test_a_good_file_comes_back_as_its_bytes() -> None:
    photo = PNG + b"\x00" * 100
    assert decoded_upload(b64(photo), name="a.png", content_type="image/png", max_bytes=1024) == photo
    assert decoded_upload(b64(b"%PDF-1.7"), name="a.pdf", content_type="application/pdf", max_bytes=1024) == b"%PDF-1.7"
    text = "olá\n".encode()
    assert decoded_upload(b64(text), name="a.txt", content_type="text/plain", max_bytes=1024) == text
    assert sha256_hex(b"") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


@pytest.mark.parametrize("data", ["not base64!", "%%%", "QUJ", "é"])
def test_bad_base64_is_a_422(data: str) -> None:
    assert refusal(data) == (422, "data must be the file's bytes in base64")
    assert refusal(data, what="photo") == (422, "data must be the photo's bytes in base64")


def test_an_empty_file_is_a_422() -> None:
    assert refusal("") == (422, "a.png is empty")


def test_a_file_past_the_cap_is_a_413_and_one_at_the_cap_is_taken() -> None:
    assert refusal(b64(PNG + bytes(1024 - len(PNG) + 1)), what="scan") == (413, "a scan may be at most 1 kB")
    at_cap = PNG + bytes(1024 - len(PNG))
    assert decoded_upload(b64(at_cap), name="a.png", content_type="image/png", max_bytes=1024) == at_cap


def test_bytes_that_are_not_what_the_content_type_says_are_a_422() -> None:
    assert refusal(b64(b"GIF89a....")) == (422, "a.png is not a PNG image")
    assert refusal(b64(PNG), "image/jpeg") == (422, "a.png is not a JPEG image")
    assert refusal(b64(b"not a pdf"), "application/pdf") == (422, "a.png is not a PDF file")
    assert refusal(b64(b"\xff\xfe\xfa"), "text/plain") == (422, "a.png is not a text file")


def test_a_site_can_take_any_kind_of_file_as_it_is() -> None:
    # mail attaches whatever is chosen: no signature or text check, the other checks stay
    odd = b"\xff\xfe\xfa"
    assert decoded_upload(b64(odd), name="a.png", content_type="image/png", max_bytes=1024, signatures={},
                          text_types=()) == odd
    assert decoded_upload(b64(odd), name="a.bin", content_type="application/octet-stream", max_bytes=1024) == odd
    assert refusal("", signatures={}, text_types=()) == (422, "a.png is empty")
