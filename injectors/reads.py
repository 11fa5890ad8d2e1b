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
        "search: schedule once); searching again, or browsing, finds the target. With same_words, every "
        "search in the words of the first degraded one is degraded as the schedule says (always: all episode "
        "long), while a search in other words is served."
    )
    kinds: ClassVar[frozenset[str]] = frozenset({"results"})
    points: ClassVar[frozenset[str] | None] = frozenset({"search"})

    count: int = Field(default=6, ge=0, le=48, description="irrelevant results shown")
    same_words: bool = Field(default=False, description="only searches in the words of the first degraded one "
                             "(`q`, whatever the case, order or spacing) are eligible; other words are served")

    def eligible(self, call: ServerCall, fault: Firing) -> bool:
        # A search in other words is no event at all, so no schedule (not even always) degrades it.
        words = fault.memo.get("words")
        return not self.same_words or words is None or _words(call) == words

    def results(self, call: ServerCall, fault: Firing, items: list[Any], pool: list[Any]) -> list[Any]:
        wanted = {id(i) for i in items}
        others = [p for p in pool if id(p) not in wanted]
        shown = fault.rng.sample(others, min(self.count, len(others)))
        fault.detail.update(hidden=len(items), shown=[getattr(p, "id", None) for p in shown])
        if self.same_words:
            fault.memo.setdefault("words", _words(call))
            fault.detail["words"] = " ".join(fault.memo["words"])
        return shown


def _words(call: ServerCall) -> tuple[str, ...]:
    """A search's words as `same_words` compares them: every site's search reads them from `q`."""
    return tuple(sorted(set(call.query.get("q", "").casefold().split())))
