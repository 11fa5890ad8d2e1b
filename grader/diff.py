"""State diff: created / updated / deleted entities per top-level collection.

A collection is a top-level list of objects with an `id`; a top-level object
(e.g. `user`) is a collection of one entity whose id is the key itself.
"""

from typing import Any

from pydantic import BaseModel, Field


class EntityChange(BaseModel):
    id: str
    before: dict[str, Any]
    after: dict[str, Any]
    changed: list[str] = Field(description="fields whose value differs")


class CollectionDiff(BaseModel):
    created: list[dict[str, Any]] = Field(default_factory=list)
    updated: list[EntityChange] = Field(default_factory=list)
    deleted: list[dict[str, Any]] = Field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.created or self.updated or self.deleted)


class StateDiff(BaseModel):
    collections: dict[str, CollectionDiff] = Field(default_factory=dict)

    def without_created(self, ids: set[str]) -> "StateDiff":
        """This diff less the records with these ids among the created (made by a fault, not the agent)."""
        if not ids:
            return self
        return StateDiff(collections={
            name: change.model_copy(update={"created": [e for e in change.created if str(e.get("id")) not in ids]})
            for name, change in self.collections.items()})

    def of(self, collection: str) -> CollectionDiff:
        return self.collections.get(collection, CollectionDiff())

    @property
    def empty(self) -> bool:
        return all(c.empty for c in self.collections.values())


def _entities(value: Any, key: str) -> dict[str, dict[str, Any]] | None:
    if isinstance(value, list) and all(isinstance(e, dict) and "id" in e for e in value):
        return {str(e["id"]): e for e in value}
    if isinstance(value, dict):
        return {key: value}
    return None


def compute_diff(initial: dict[str, Any], final: dict[str, Any]) -> StateDiff:
    diff = StateDiff()
    for key in list(initial) + [k for k in final if k not in initial]:
        before = _entities(initial.get(key, []), key) or {}
        after = _entities(final.get(key, []), key) or {}
        if not before and not after and initial.get(key) != final.get(key):
            # Scalars / unkeyed lists: one pseudo-entity holding the value.
            before, after = {key: {"value": initial.get(key)}}, {key: {"value": final.get(key)}}
        change = CollectionDiff(
            created=[e for i, e in after.items() if i not in before],
            deleted=[e for i, e in before.items() if i not in after],
        )
        for entity_id, old in before.items():
            new = after.get(entity_id)
            if new is not None and new != old:
                fields = sorted(set(old) | set(new))
                changed = [f for f in fields if old.get(f) != new.get(f)]
                change.updated.append(EntityChange(id=entity_id, before=old, after=new, changed=changed))
        if not change.empty:
            diff.collections[key] = change
    return diff
