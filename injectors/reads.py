"""Read family (server): `stale_read` and `search_degraded`."""

from typing import Any, ClassVar

from pydantic import Field

from injectors.hookspec import Firing, Proceed, Reply, ServerCall, ServerFault, When
from scenarios.faults import Primitive, register


@register
class StaleRead(ServerFault):
    name: ClassVar[str] = "stale_read"
    primitive: ClassVar[Primitive] = Primitive.patience
    description: ClassVar[str] = (
        "After a successful write, the next `reads` reads (pages or JSON) are served from the state as it "
        "was before the write; the write itself is kept. Every write is observed, whatever the match."
    )
    kinds: ClassVar[frozenset[str]] = frozenset({"page", "read", "write"})
    when: ClassVar[When] = "instead"

    reads: int = Field(default=1, ge=1, le=20, description="reads per write that see the old state")

    def observe(self, call: ServerCall, fault: Firing) -> None:
        if call.kind == "write" and call.reply is not None and call.reply.ok:
            fault.memo["stale"] = call.snapshot
            fault.memo["reads_left"] = self.reads
            fault.memo["write"] = call.point

    def eligible(self, call: ServerCall, fault: Firing) -> bool:
        return call.kind != "write" and fault.memo.get("reads_left", 0) > 0

    async def instead(self, call: ServerCall, fault: Firing, proceed: Proceed) -> Reply:
        fault.memo["reads_left"] -= 1
        fault.detail.update(after_write=fault.memo["write"], reads_left=fault.memo["reads_left"])
        episode = call.episode
        current, episode.state = episode.state, fault.memo["stale"]
        try:
            return await proceed()
        finally:
            episode.state = current


@register
class SearchDegraded(ServerFault):
    name: ClassVar[str] = "search_degraded"
    primitive: ClassVar[Primitive] = Primitive.exploration
    description: ClassVar[str] = (
        "A search answers count irrelevant results instead of the real ones (by default only the first "
        "search: schedule once); searching again, or browsing, finds the target."
    )
    kinds: ClassVar[frozenset[str]] = frozenset({"results"})
    points: ClassVar[frozenset[str] | None] = frozenset({"search"})

    count: int = Field(default=6, ge=0, le=48, description="irrelevant results shown")

    def results(self, call: ServerCall, fault: Firing, items: list[Any], pool: list[Any]) -> list[Any]:
        wanted = {id(i) for i in items}
        others = [p for p in pool if id(p) not in wanted]
        shown = fault.rng.sample(others, min(self.count, len(others)))
        fault.detail.update(hidden=len(items), shown=[getattr(p, "id", None) for p in shown])
        return shown
