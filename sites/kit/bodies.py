"""What every site's JSON write bodies share: no unknown fields, strict trimmed text, no markup where
text is kept and shown again, and the shapes of an id and of a day."""

from typing import Annotated

from pydantic import BaseModel, ConfigDict, StringConstraints


class RequestBody(BaseModel):
    """A JSON write body: an unknown field is refused (422), not ignored."""

    model_config = ConfigDict(extra="forbid")


def text(min_length: int, max_length: int) -> StringConstraints:
    """A strict string, trimmed, of this length (use as `Annotated[str, text(1, 120)]`)."""
    return StringConstraints(strict=True, strip_whitespace=True, min_length=min_length, max_length=max_length)


def no_markup(value: str) -> str:
    """Refuse angle brackets in kept text (use as an `AfterValidator`)."""
    if "<" in value or ">" in value:
        raise ValueError("angle brackets (< >) are not allowed")
    return value


# An id a body names (of an entity in the state): letters, digits, '_' and '-'.
Id = Annotated[str, StringConstraints(strict=True, min_length=1, max_length=40, pattern=r"^[A-Za-z0-9_-]+$")]
# A day a body names, ISO 'YYYY-MM-DD' (whether it is a real day is the site's check).
Day = Annotated[str, StringConstraints(strict=True, pattern=r"^\d{4}-\d{2}-\d{2}$")]
