"""Models that grow fields after worlds were first pinned: a field added for a later feature is left out of the
JSON while unset, so worlds that do not use the feature keep their bytes (tests/sites/test_digests.py)."""

from pydantic import BaseModel, SerializerFunctionWrapHandler, model_serializer


class OmitsUnused(BaseModel):
    """A model whose later-added fields, named in `_omit_when_unset`, are left out of its JSON while None."""

    _omit_when_unset: tuple[str, ...] = ()

    @model_serializer(mode="wrap")
    def _omit_unset(self, handler: SerializerFunctionWrapHandler) -> dict[str, object]:
        data: dict[str, object] = handler(self)
        for key in self._omit_when_unset:
            if data.get(key) is None:
                data.pop(key, None)
        return data
