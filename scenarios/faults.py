"""The fault vocabulary shared by every layer (Toxiproxy's idea).

A fault is declared by one envelope: `type`, `layer`, `match`, `schedule`,
`toxicity`, `params`. A fault *type* is a small pydantic model whose fields are
its parameters (units in their names) registered by name; matching, scheduling
and probability live here once, and each layer only says what a firing does.
"""

import fnmatch
import functools
import random
from enum import StrEnum
from importlib.metadata import entry_points
from typing import Any, ClassVar, Literal, TypeVar

from pydantic import Field, ValidationError, field_validator, model_validator

from scenarios.seeding import derive_seed
from scenarios.strict import Strict
from scenarios.triggers import Source, Trigger, TriggerState


class Layer(StrEnum):
    seed = "seed"
    server = "server"
    network = "network"
    client = "client"


# Which process acts on which layers: the sites server generates worlds and answers requests,
# the proxy sits on the wire and injects into pages.
SITE_LAYERS = (Layer.seed, Layer.server)
PROXY_LAYERS = (Layer.network, Layer.client)
ALL_LAYERS = (*SITE_LAYERS, *PROXY_LAYERS)


class Primitive(StrEnum):
    grounding = "grounding"
    planning = "planning"
    state_tracking = "state_tracking"
    backtracking = "backtracking"
    patience = "patience"
    exploration = "exploration"
    verification = "verification"


class Match(Strict):
    """Which events a fault may touch. Globs use fnmatch syntax; an unset field matches all."""

    host: str | None = Field(default=None, description="host glob, e.g. 'shop.test' or '*.test'")
    path: str | None = Field(default=None, description="path glob (query string excluded), e.g. '/api/cart*'")
    methods: list[str] | None = Field(default=None, description="HTTP methods, e.g. [POST]")
    content_type: str | None = Field(
        default=None, description="content-type glob: the response's; before it, the request's (a request without "
                                  "a body: the first type its Accept header asks for, text/html for a page load)")
    body_contains: str | None = Field(default=None, description="substring of the request body")
    selector: str | None = Field(default=None, description="client faults: CSS selector of the target")
    role: str | None = Field(default=None, description="client faults: ARIA role of the target")
    name: str | None = Field(default=None, description="client faults: accessible name of the target")
    within: str | None = Field(
        default=None, description="client faults: the target inside the nearest container (article, section, list "
                                  "item, row, form, region, group) whose text holds this, as a plan step's `within`")

    @field_validator("name")
    @classmethod
    def _literal_name(cls, name: str | None) -> str | None:
        # The page's script finds a client fault's target by its name as written (whole, or a part of it);
        # a /regular expression/ would never match, and the fault would never fire.
        if name is not None and len(name) > 1 and name.startswith("/") and name.endswith("/"):
            raise ValueError(f"a client fault's target is named as written (or by a part of its name), not by a "
                             f"/regular expression/: {name!r}")
        return name

    @field_validator("methods")
    @classmethod
    def _upper(cls, methods: list[str] | None) -> list[str] | None:
        return [m.upper() for m in methods] if methods is not None else None

    @field_validator("host", "path", "content_type")
    @classmethod
    def _glob(cls, value: str | None) -> str | None:
        if value is not None:
            if not value or value.count("[") != value.count("]"):
                raise ValueError(f"not a valid glob: {value!r}")
        return value

    def matches_request(self, host: str, path: str, method: str, body: bytes = b"",
                        content_type: str = "") -> bool:
        path = path.split("?", 1)[0]
        if self.host is not None and not fnmatch.fnmatchcase(host.lower(), self.host.lower()):
            return False
        if self.path is not None and not fnmatch.fnmatchcase(path, self.path):
            return False
        if self.methods is not None and method.upper() not in self.methods:
            return False
        if self.content_type is not None and not fnmatch.fnmatchcase(content_type, self.content_type):
            return False
        return not (self.body_contains is not None and self.body_contains.encode() not in body)


ScheduleMode = Literal["always", "once", "first_n", "every_nth", "after_n", "intermittent", "window"]


class Schedule(Strict):
    mode: ScheduleMode = "always"
    n: int | None = Field(default=None, ge=1, description="first_n / every_nth / after_n count")
    probability: float | None = Field(default=None, ge=0, le=1, description="intermittent: chance per event")
    start_ms: int | None = Field(default=None, ge=0, description="window: start, from episode open")
    duration_ms: int | None = Field(default=None, ge=0, description="window: length")

    @model_validator(mode="after")
    def _needs(self) -> "Schedule":
        required = {
            "first_n": ["n"], "every_nth": ["n"], "after_n": ["n"],
            "intermittent": ["probability"], "window": ["start_ms", "duration_ms"],
        }.get(self.mode, [])
        for name in required:
            if getattr(self, name) is None:
                raise ValueError(f"schedule mode {self.mode!r} needs field {name!r}")
        return self


class FaultSpec(Strict):
    """The envelope, as written in a variant."""

    id: str | None = Field(default=None, description="stable id; defaults to '<type>#<index>'")
    type: str
    layer: Layer
    match: Match = Match()
    schedule: Schedule = Schedule()
    toxicity: float = Field(default=1.0, ge=0, le=1, description="probability per eligible event")
    params: dict[str, Any] = Field(default_factory=dict)
    trigger: Trigger | None = Field(default=None, description="start/stop on the episode's progress "
                                    "(scenarios/triggers.py)")

    @model_validator(mode="after")
    def _trigger_fits_layer(self) -> "FaultSpec":
        if self.trigger is None:
            return self
        if self.layer == Layer.seed:
            raise ValueError("trigger: seed faults act once, when the world is generated: they take no trigger")
        if self.layer == Layer.server and self.trigger.uses_actions:
            raise ValueError("trigger: GUI actions are seen by the proxy: a server fault may be triggered by "
                             "semantic events only (event: …)")
        return self


class FaultType(Strict):
    """Base of every registered fault type; subclasses declare parameters as fields."""

    name: ClassVar[str]
    layer: ClassVar[Layer]
    primitive: ClassVar[Primitive]
    description: ClassVar[str]
    # Seed/server families whose mechanism needs a site's records name the Protocol a site
    # implements (in its `faults.py`); None: the type works on every site as it is.
    site_protocol: ClassVar[type | None] = None
    # A seed fault that makes its task impossible (removes what the task names): the correct outcome of
    # its variants is the answer "infeasible" with nothing written (`webchaos list` marks them so).
    makes_infeasible: ClassVar[bool] = False

    @classmethod
    def check_match(cls, match: Match) -> str | None:
        """A type may reject a `match` it cannot use (e.g. a client fault without a target)."""
        return None


# Keyed by (layer, name): one name may exist on two layers (e.g. `session_expiry` in the
# proxy and in the sites' handlers); the envelope's `layer` says which one is meant.
_REGISTRY: dict[tuple[Layer, str], type[FaultType]] = {}
# `_types_on`'s answers, dropped whenever a type is registered or forgotten (it is asked once per fault parsed,
# thousands of times as the catalog loads).
_TYPES_ON: dict[tuple[Layer, ...], dict[tuple[Layer, str], type[FaultType]]] = {}
# Fault types are plugins: each entry point of a layer's group (`webchaos.faults.network`, …)
# names a module whose import registers that layer's types (the built-in ones are declared in
# pyproject.toml; other packages may add their own). One group per layer, so a process loads only
# the layers it acts on: the sites server never imports the proxy's mechanisms (nor mitmproxy).
PLUGIN_GROUP_PREFIX = "webchaos.faults"


def plugin_group(layer: Layer) -> str:
    return f"{PLUGIN_GROUP_PREFIX}.{layer.value}"

F = TypeVar("F", bound=type[FaultType])


def register(cls: F) -> F:
    key = (cls.layer, cls.name)
    if key in _REGISTRY and _REGISTRY[key] is not cls:
        raise ValueError(f"{cls.layer.value} fault type {cls.name!r} registered twice")
    _REGISTRY[key] = cls
    _TYPES_ON.clear()
    return cls


def unregister(cls: type[FaultType]) -> None:
    """Forget a type (for tests that register a throwaway one)."""
    if _REGISTRY.get((cls.layer, cls.name)) is cls:
        del _REGISTRY[(cls.layer, cls.name)]
        _TYPES_ON.clear()


@functools.cache
def _load_plugins(layer: Layer) -> None:
    for entry in sorted(entry_points(group=plugin_group(layer)), key=lambda e: e.name):
        entry.load()


def load_plugins(layers: tuple[Layer, ...] = ALL_LAYERS) -> None:
    """Import the modules that register the types of `layers` (each once per process)."""
    for layer in layers:
        _load_plugins(layer)


def _types_on(layers: tuple[Layer, ...]) -> dict[tuple[Layer, str], type[FaultType]]:
    load_plugins(layers)
    if layers not in _TYPES_ON:
        _TYPES_ON[layers] = {key: kind for key, kind in _REGISTRY.items() if key[0] in layers}
    return _TYPES_ON[layers]


def registry() -> dict[str, type[FaultType]]:
    """Every registered type by name; a name used on several layers is keyed '<layer>:<name>'."""
    types = _types_on(ALL_LAYERS)
    shared = {name for (_, name) in types if sum(1 for (_, n) in types if n == name) > 1}
    out = {(f"{layer.value}:{name}" if name in shared else name): kind
           for (layer, name), kind in types.items()}
    return dict(sorted(out.items()))


def lookup(name: str, layer: Layer | str) -> type[FaultType] | None:
    """The type registered under `name` on `layer` (a Layer or its name; None if there is none)."""
    layer = Layer(layer)
    return _types_on((layer,)).get((layer, name))


class FaultError(ValueError):
    """A fault spec that cannot be used; the message names the fault and the field."""


def _where(loc: tuple[int | str, ...]) -> str:
    return ".".join(str(p) or repr(p) for p in loc) or "(root)"


def _parse_envelope(raw: Any, index: int) -> FaultSpec:
    try:
        return FaultSpec.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise FaultError(f"faults[{index}].{_where(first['loc'])}: {first['msg']}") from exc


def _parse_params(spec: FaultSpec, index: int, layers: tuple[Layer, ...]) -> tuple[FaultSpec, FaultType]:
    """`layers`: the layers this process knows (their plugins loaded); the hints name only those."""
    types = _types_on(layers)
    kind = types.get((spec.layer, spec.type))
    if kind is None:
        elsewhere = sorted(layer.value for (layer, name) in types if name == spec.type)
        if elsewhere:
            raise FaultError(f"faults[{index}].layer: {spec.type!r} is a {' or '.join(elsewhere)} fault, "
                             f"not {spec.layer.value}")
        known = ", ".join(sorted({name for (_, name) in types}))
        raise FaultError(f"faults[{index}].type: unknown fault type {spec.type!r}; known: {known}")
    allowed = ", ".join(f"{n}" for n in kind.model_fields)
    try:
        params = kind.model_validate(spec.params)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise FaultError(
            f"faults[{index}].params.{_where(first['loc'])}: {first['msg']} (parameters of {spec.type!r}: {allowed})"
        ) from exc
    except Exception as exc:  # a type's own validator tripped over a value (e.g. a list where a name goes)
        raise FaultError(f"faults[{index}].params: not valid for {spec.type!r} ({type(exc).__name__}: {exc}; "
                         f"parameters: {allowed})") from exc
    try:
        problem = kind.check_match(spec.match)
    except Exception as exc:
        raise FaultError(f"faults[{index}].match: not valid for {spec.type!r} ({type(exc).__name__}: {exc})") from exc
    if problem:
        raise FaultError(f"faults[{index}].match: {problem}")
    if spec.id is None:
        spec = spec.model_copy(update={"id": f"{spec.type}#{index}"})
    return spec, params


def parse_fault(raw: Any, index: int, layers: tuple[Layer, ...] = ALL_LAYERS) -> tuple[FaultSpec, FaultType]:
    """Validate one envelope of one of `layers` and its parameters; the error names index, field
    and allowed values. Only the plugins of `layers` are loaded."""
    spec = _parse_envelope(raw, index)
    if spec.layer not in layers:
        raise FaultError(f"faults[{index}].layer: {spec.layer.value} faults are not handled here "
                         f"(only {', '.join(layer.value for layer in layers)})")
    return _parse_params(spec, index, layers)


def parse_faults(raw_faults: list[Any], layers: tuple[Layer, ...] = ALL_LAYERS) -> list[tuple[FaultSpec, FaultType]]:
    """The one arming path's parse: each envelope once, keeping the faults of `layers` (all by default).

    Envelopes of other layers are checked as envelopes only (their types live in another process,
    whose plugins are not loaded here); default ids use the index in the full list. Raises
    `FaultError` naming the index and the field, or a duplicate id.
    """
    parsed: list[tuple[FaultSpec, FaultType]] = []
    for index, raw in enumerate(raw_faults):
        spec = _parse_envelope(raw, index)
        if spec.layer not in layers:
            continue
        parsed.append(_parse_params(spec, index, layers))
    seen: set[str] = set()
    for spec, _ in parsed:
        assert spec.id is not None
        if spec.id in seen:
            raise FaultError(f"faults: duplicate fault id {spec.id!r}")
        seen.add(spec.id)
    return parsed


class ArmedFault:
    """One fault in one episode: its schedule counters and its own seeded RNG.

    Each fault draws from an RNG derived from (episode seed, fault id), so the
    firing sequence of one fault does not depend on how flows of other faults
    interleave with it.
    """

    def __init__(self, spec: FaultSpec, params: FaultType, seed: int) -> None:
        self.spec = spec
        self.params = params
        self.rng = random.Random(derive_seed("fault", seed, spec.id))
        self.eligible = 0
        self.fired = 0
        self.trigger = TriggerState(spec.trigger) if spec.trigger is not None else None

    @property
    def id(self) -> str:
        assert self.spec.id is not None
        return self.spec.id

    @property
    def active(self) -> bool:
        """False while its trigger has not happened yet, or after its `until` happened."""
        return self.trigger is None or self.trigger.active

    def observe(self, source: Source, kind: str, name: str | None) -> str | None:
        """One semantic event or GUI action of the episode; returns how the trigger changed, if it did."""
        return self.trigger.observe(source, kind, name) if self.trigger is not None else None

    def decide(self, elapsed_ms: float) -> bool:
        """Count one eligible event and say whether the fault fires on it (never while inactive)."""
        if not self.active:
            return False
        self.eligible += 1
        s, k = self.spec.schedule, self.eligible
        if s.mode == "once":
            allowed = self.fired == 0
        elif s.mode == "first_n":
            allowed = k <= (s.n or 0)
        elif s.mode == "every_nth":
            allowed = k % (s.n or 1) == 0
        elif s.mode == "after_n":
            allowed = k > (s.n or 0)
        elif s.mode == "intermittent":
            allowed = self.rng.random() < (s.probability or 0.0)
        elif s.mode == "window":
            start = s.start_ms or 0
            allowed = start <= elapsed_ms < start + (s.duration_ms or 0)
        else:
            allowed = True
        if not allowed:
            return False
        if self.spec.toxicity < 1.0 and self.rng.random() >= self.spec.toxicity:
            return False
        self.fired += 1
        return True

