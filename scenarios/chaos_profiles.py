"""Chaos profiles: a background mixture of low-rate faults laid over any task.

A profile is a YAML file (the built-in ones in `scenarios/profiles/`; copy one and edit it)::

    name: flaky-network
    description: tail latency, occasional 5xx and resets
    include: [other-profile]          # optional: their faults come first
    faults:                           # envelopes exactly as in a variant; no seed faults
      - {id: slow-tail, type: latency, layer: network, schedule: {mode: intermittent, probability: 0.25},
         params: {delay_ms: 800, jitter_ms: 300}}

Unlike a variant it has no target primitive and no task list: `webchaos run --chaos-profile NAME`
runs every planned base episode once more with the profile's faults, and the report puts the
score under the profile next to the clean base. Server faults must be of types every site
implements (no site protocol), since a profile goes over any task.
"""

from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from scenarios.faults import FaultError, Layer, parse_fault
from scenarios.loader import ScenarioError
from scenarios.strict import Strict

PROFILES_DIR = Path(__file__).parent / "profiles"
_NAME = r"^[a-z0-9][a-z0-9-]{0,60}$"


class ProfileFile(Strict):
    name: str = Field(pattern=_NAME, description="lower-case words joined by '-'")
    description: str = ""
    include: list[str] = Field(default_factory=list, description="names of profiles whose faults come first")
    faults: list[dict[str, Any]] = Field(default_factory=list)


class ChaosProfile(BaseModel):
    """A loaded profile: its own faults after those of the profiles it includes."""

    model_config = ConfigDict(frozen=True)

    name: str
    description: str
    path: str
    faults: list[dict[str, Any]]


def builtin_profiles() -> list[str]:
    return sorted(p.stem for p in PROFILES_DIR.glob("*.yaml"))


def profile_path(name_or_path: str) -> Path:
    """A name of a built-in profile, or a path to a YAML file."""
    candidate = Path(name_or_path)
    if candidate.suffix in (".yaml", ".yml") or "/" in name_or_path:
        return candidate
    path = PROFILES_DIR / f"{name_or_path}.yaml"
    if not path.is_file():
        raise ScenarioError(name_or_path, "(profile)",
                            f"no built-in chaos profile of that name; built in: {', '.join(builtin_profiles())}; "
                            "or give a path to a YAML file")
    return path


def _where(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(root)"


def load_profile(name_or_path: str, _seen: tuple[str, ...] = ()) -> ChaosProfile:
    """Load and check a profile; a `ScenarioError` names the file, the field and what was expected."""
    path = profile_path(name_or_path)
    try:
        raw = yaml.safe_load(path.read_text())
    except OSError as exc:
        raise ScenarioError(path, "(file)", f"cannot read: {exc.strerror}") from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise ScenarioError(path, f"line {mark.line + 1}" if mark else "(file)",
                            f"not valid YAML: {getattr(exc, 'problem', exc)}") from exc
    try:
        data = ProfileFile.model_validate(raw if raw is not None else {})
    except ValidationError as exc:
        first = exc.errors()[0]
        message = first["msg"]
        if first["type"] == "extra_forbidden":
            message = f"unknown field; allowed: {', '.join(ProfileFile.model_fields)}"
        raise ScenarioError(path, _where(first["loc"]), message) from exc
    faults: list[dict[str, Any]] = []
    for i, included in enumerate(data.include):
        if included in (*_seen, data.name):
            raise ScenarioError(path, f"include[{i}]", f"profile {included!r} includes itself")
        faults.extend(load_profile(included, (*_seen, data.name)).faults)
    faults.extend(data.faults)
    seen_ids: set[str] = set()
    own_start = len(faults) - len(data.faults)
    for index, envelope in enumerate(faults):
        where = f"faults[{index - own_start}]" if index >= own_start else "include"
        try:
            spec, params = parse_fault(envelope, index)
        except FaultError as exc:
            field, _, message = str(exc).partition(": ")
            raise ScenarioError(path, field.replace(f"faults[{index}]", where, 1), message) from exc
        if spec.layer == Layer.seed:
            raise ScenarioError(path, f"{where}.layer", "a profile goes over any task as it runs: seed faults "
                                                        "(which change the generated world) belong in variants")
        if type(params).site_protocol is not None:
            raise ScenarioError(path, f"{where}.type", f"{spec.type!r} needs a site's own implementation; a "
                                                       "profile goes over any site: use a type every site has")
        if spec.id in seen_ids:
            raise ScenarioError(path, f"{where}.id", f"duplicate fault id {spec.id!r} (give each fault an id)")
        assert spec.id is not None
        seen_ids.add(spec.id)
    return ChaosProfile(name=data.name, description=data.description, path=str(path), faults=faults)
