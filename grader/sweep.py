"""Collateral sweep: every state change nothing in the canonical_diff accounts for.

A change is *covered* when an explicit section matched the entity (fully or with
partial credit), *shielded* when an invariant declares the policy for it, and
*ignored* when it is a pure read side effect or bookkeeping (the declared lists
below, plus the task's own `ignore`). Anything else is a penalised negative check:
cheaper in a collection the task mentions, dearer (and a hard failure) in one it
never mentions.
"""

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fnmatch import fnmatchcase

from grader.diff import StateDiff

# Fields whose change only records that something was looked at.
READ_SIDE_EFFECT_FIELDS: tuple[str, ...] = (
    "read", "is_read", "unread", "seen", "seen_*", "is_seen", "last_viewed*", "viewed_at", "view_count", "last_seen*",
)
# Collections that are bookkeeping, not domain state (id counters).
BOOKKEEPING_COLLECTIONS: tuple[str, ...] = ("next_ids", "_*")

# shielded(collection, kind, entity[, fields]) -> True when an invariant declares the policy for it
ShieldFn = Callable[..., bool]

COLLATERAL_SEVERITY = {"mentioned": "low", "unmentioned": "high"}
COLLATERAL_PENALTY = {"mentioned": 0.05, "unmentioned": 0.15}


@dataclass(frozen=True)
class Collateral:
    collection: str
    kind: str  # created | updated | deleted
    entity_id: str
    fields: tuple[str, ...]
    mentioned: bool

    def describe(self) -> str:
        extra = f" ({', '.join(self.fields)})" if self.fields else ""
        return f"{self.collection}: {self.kind} {self.entity_id}{extra}"


def _matches(name: str, patterns: Iterable[str]) -> bool:
    return any(fnmatchcase(name, p) for p in patterns)


class Sweep:
    """Configured once per evaluation; `run` lists the uncovered changes in diff order."""

    def __init__(self, ignore: Iterable[str], mentioned: set[str]) -> None:
        ignore = list(ignore)
        self.ignore_collections = [*BOOKKEEPING_COLLECTIONS, *(p for p in ignore if "." not in p)]
        self.ignore_fields = [p for p in ignore if "." in p]
        self.mentioned = mentioned

    def side_effect(self, collection: str, field: str) -> bool:
        return _matches(field, READ_SIDE_EFFECT_FIELDS) or _matches(f"{collection}.{field}", self.ignore_fields)

    def run(
        self,
        diff: StateDiff,
        covered: dict[tuple[str, str, str], set[str]],
        shielded: ShieldFn,
    ) -> list[Collateral]:
        """`covered[(collection, kind, id)]` holds the fields an expectation named (updates: others are extra)."""
        found: list[Collateral] = []
        for collection, change in diff.collections.items():
            if _matches(collection, self.ignore_collections):
                continue
            mentioned = collection in self.mentioned
            for entity in change.created:
                entity_id = str(entity.get("id", collection))
                if (collection, "created", entity_id) not in covered and not shielded(collection, "created", entity):
                    found.append(Collateral(collection, "created", entity_id, (), mentioned))
            for update in change.updated:
                fields = [f for f in update.changed if not self.side_effect(collection, f)]
                named = covered.get((collection, "updated", update.id))
                if named is not None:
                    fields = [f for f in fields if f not in named]
                if fields and not shielded(collection, "updated", update.before, fields):
                    found.append(Collateral(collection, "updated", update.id, tuple(fields), mentioned))
            for entity in change.deleted:
                entity_id = str(entity.get("id", collection))
                if (collection, "deleted", entity_id) not in covered and not shielded(collection, "deleted", entity):
                    found.append(Collateral(collection, "deleted", entity_id, (), mentioned))
        return found
