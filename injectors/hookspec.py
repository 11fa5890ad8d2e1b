"""The hook specification of the seed and server layers (in the spirit of pytest's hookspecs).

A seed or server fault type subclasses `SeedFault` or `ServerFault` and implements the hooks
it needs; the sites call the hooks at well-named points through `sites.kit.hooks`, which owns
matching (`match`), scheduling and toxicity (`ArmedFault.decide`), the ledger line, snapshots
and error handling. A site never special-cases a fault.

Seed layer — once, when an episode's world has just been generated:

    SeedFault.seed(world: SeedWorld, fault: Firing) -> None
        change `world.state` (and `world.bindings`, when the fault changes what the task
        refers to) using only `fault.rng`; put what was touched in `fault.detail`.

Server layer — around a handler call at a hook point. A point has a name (`"add_to_cart"`)
and a kind (`page`, `read`, `write`, `login`, or `results` for a list about to be shown).
A type lists the kinds it applies to in `kinds` (and, optionally, point names in `points`):

    ServerFault.observe(call, fault)             every call of those kinds, whatever the match,
                                                 after the handler (`call.reply` is set);
                                                 bookkeeping only, never a firing (it may add
                                                 a non-firing ledger line with `fault.note`)
    ServerFault.eligible(call, fault) -> bool    does this call count as an eligible event?
    ServerFault.before(call, fault) -> Reply | None
                                                 `when = "before"`: runs once fired, before the
                                                 handler; returning a Reply answers *instead*
    ServerFault.instead(call, fault, proceed) -> Reply
                                                 `when = "instead"`: replaces the handler call;
                                                 may `await proceed()` (e.g. on another state)
    ServerFault.after(call, fault, reply) -> Reply
                                                 `when = "after"`: eligibility and the decision are
                                                 taken after a successful handler; may replace
                                                 the reply (the handler's writes stay)
    ServerFault.results(call, fault, items, pool) -> list
                                                 kind `results`: the items a listing or search is
                                                 about to show, and the pool they came from

Everything in this module is free of web frameworks: the proxy process imports the registry.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from random import Random
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, Protocol, TypeVar

from pydantic import BaseModel

from scenarios.faults import ArmedFault, FaultType, Layer

if TYPE_CHECKING:
    from scenarios.clock import EpisodeClock

CallKind = Literal["page", "read", "write", "login", "results"]
When = Literal["before", "instead", "after"]


@dataclass
class Reply:
    """What a handler answered, or what a fault answers instead (framework-free).

    `value` is the handler's own return value (passed through untouched); otherwise `status`
    and `detail` describe an error answer, or `location` a redirect.
    """

    status: int = 200
    value: Any = None
    detail: Any = None
    location: str | None = None
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 400 and self.location is None

    @classmethod
    def error(cls, status: int, detail: Any, headers: dict[str, str] | None = None) -> Reply:
        return cls(status=status, detail=detail, headers=dict(headers or {}))

    @classmethod
    def redirect(cls, location: str) -> Reply:
        return cls(status=303, location=location)


@dataclass
class Firing:
    """One armed fault in one episode, as its hooks see it."""

    armed: ArmedFault
    memo: dict[str, Any] = field(default_factory=dict)   # per-episode bookkeeping of this fault
    detail: dict[str, Any] = field(default_factory=dict)  # what this firing touched (-> ledger)

    notes: list[dict[str, Any]] = field(default_factory=list)  # non-firing ledger lines, pending

    @property
    def rng(self) -> Random:
        return self.armed.rng

    def note(self, **detail: Any) -> None:
        """Ask for a ledger line that is not a firing (e.g. the agent signed in again)."""
        self.notes.append(detail)

    @property
    def id(self) -> str:
        return self.armed.id


StateT = TypeVar("StateT", bound=BaseModel)


class HookEpisode(Protocol[StateT]):
    """What a server hook may use of a site's episode (sites.kit.episode.SiteEpisode; no web imports here)."""

    state: StateT                    # swapped for a stale copy by stale_read, restored after
    bindings: dict[str, Any]
    clock: EpisodeClock
    signed_in: bool

    def login_required(self, call: ServerCall[StateT]) -> Reply: ...


@dataclass
class SeedWorld(Generic[StateT]):
    """A freshly generated world, handed to seed hooks; a site's implementations name its state type,
    `SeedWorld[ShopState]`."""

    site: str
    host: str
    state: StateT
    bindings: dict[str, Any]
    clock: EpisodeClock
    params: dict[str, Any]
    implementations: Mapping[str, object] = field(default_factory=dict)  # the site's fault implementations


@dataclass
class ServerCall(Generic[StateT]):
    """One request at a hook point; a site's implementations name its state type, `ServerCall[ShopState]`."""

    episode: HookEpisode[StateT]
    site: str
    point: str
    kind: CallKind
    method: str
    host: str
    path: str
    query: dict[str, str]
    target: str | None = None        # the entity the call is about, when the site knows it
    snapshot: Any = None             # a copy of the state before the call (set by the engine)
    reply: Reply | None = None       # set once the handler has answered
    implementations: Mapping[str, object] = field(default_factory=dict)  # the site's fault implementations

    @property
    def state(self) -> StateT:
        return self.episode.state


Proceed = Callable[[], Awaitable[Reply]]


class SiteSpecific(FaultType):
    """A seed or server type whose mechanism needs the site's records: the site implements
    `site_protocol` (a Protocol declared next to the family) under the type's name in its
    `faults` mapping. Types with no protocol work on every site as they are."""

    @classmethod
    def implemented_by(cls, implementations: Mapping[str, object]) -> bool:
        return cls.site_protocol is None or cls.name in implementations

    def site_impl(self, implementations: Mapping[str, object]) -> Any:
        """This site's implementation of the family (typed by `site_protocol`)."""
        impl = implementations.get(self.name)
        if impl is None:
            raise HookUnsupported(f"fault type {self.name!r} is not implemented by this site")
        return impl


class SeedFault(SiteSpecific):
    """Base of seed-layer fault types."""

    layer: ClassVar[Layer] = Layer.seed

    def seed(self, world: SeedWorld, fault: Firing) -> None:
        raise NotImplementedError


class ServerFault(SiteSpecific):
    """Base of server-layer fault types."""

    layer: ClassVar[Layer] = Layer.server
    kinds: ClassVar[frozenset[str]] = frozenset()
    points: ClassVar[frozenset[str] | None] = None   # None: every point of those kinds
    when: ClassVar[When] = "before"

    def applies_to(self, call: ServerCall) -> bool:
        return call.kind in self.kinds and (self.points is None or call.point in self.points)

    def observe(self, call: ServerCall, fault: Firing) -> None:
        return None

    def eligible(self, call: ServerCall, fault: Firing) -> bool:
        return True

    def before(self, call: ServerCall, fault: Firing) -> Reply | None:
        return None

    async def instead(self, call: ServerCall, fault: Firing, proceed: Proceed) -> Reply:
        return await proceed()

    def after(self, call: ServerCall, fault: Firing, reply: Reply) -> Reply:
        return reply

    def results(self, call: ServerCall, fault: Firing, items: list[Any], pool: list[Any]) -> list[Any]:
        return items


class HookUnsupported(ValueError):
    """A fault type that the episode's site does not implement."""
