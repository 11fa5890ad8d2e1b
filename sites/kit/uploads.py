"""An uploaded file's checks, the same on every site that takes one: the JSON body carries the file's bytes in
base64 (`validate=True`: a stray character is a malformed body, not silently dropped), an empty file or one past
the site's cap is refused, and the bytes must be what the content type says (a signature, or UTF-8 for text).
Each refusal is an HTTPException whose status the sites' tests and the fuzz test rely on: 422 malformed or not
the kind of file named, 413 too large."""

import base64
import binascii
import hashlib
from collections.abc import Collection, Mapping

from fastapi import HTTPException

PNG = b"\x89PNG\r\n\x1a\n"
JPEG = b"\xff\xd8\xff"
PDF = b"%PDF"
# The first bytes of each kind of file a site takes; a site's body model limits which content types reach the check.
SIGNATURES: Mapping[str, bytes] = {"image/png": PNG, "image/jpeg": JPEG, "application/pdf": PDF}
TEXT_TYPES = ("text/plain",)


def decoded_upload(data_b64: str, *, name: str, content_type: str, max_bytes: int, what: str = "file",
                   signatures: Mapping[str, bytes] = SIGNATURES, text_types: Collection[str] = TEXT_TYPES) -> bytes:
    """The bytes of the upload `name`, checked in this order: base64 (422), not empty (422), at most `max_bytes`
    (413), then a content type in `signatures` must start with its signature and one in `text_types` must be
    UTF-8 (422). A content type in neither is taken as it is (mail attaches any kind of file). `what` names the
    file in the messages ("photo", "scan")."""
    try:
        data = base64.b64decode(data_b64, validate=True)
    except (binascii.Error, ValueError):
        raise HTTPException(422, f"data must be the {what}'s bytes in base64") from None
    if not data:
        raise HTTPException(422, f"{name} is empty")
    if len(data) > max_bytes:
        raise HTTPException(413, f"a {what} may be at most {max_bytes // 1024} kB")
    if content_type in text_types:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            raise HTTPException(422, f"{name} is not a text file") from None
    elif content_type in signatures and not data.startswith(signatures[content_type]):
        kind = "image" if content_type.startswith("image/") else "file"
        raise HTTPException(422, f"{name} is not a {content_type.split('/')[1].upper()} {kind}")
    return data


def sha256_hex(data: bytes) -> str:
    """The digest an upload's record keeps (a user's copy can be told from another file of the same name)."""
    return hashlib.sha256(data).hexdigest()
