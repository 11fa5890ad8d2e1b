"""The one base of every declared model (catalog, fault envelopes, profiles, recipes): a field the
model does not know is an error naming it, never silently dropped (a typo must not change a run)."""

from pydantic import BaseModel, ConfigDict


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FrozenStrict(Strict):
    """Strict and immutable once built (a site's profile, shared by every episode)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
