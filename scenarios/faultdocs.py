"""The fault catalog as a table, generated from the registry (`docs/faults.md`, `webchaos faults`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

# Importing this module loads no fault type: `webchaos faults` renders a description it has kept from an earlier
# run without the registry (harness/cli/listings.py).
if TYPE_CHECKING:
    from pydantic.fields import FieldInfo

    from scenarios.faults import FaultType

_UNITS = (("_ms", "ms"), ("_s", "s"), ("_bps", "bytes/s"), ("_bytes", "bytes"), ("_pct", "%"))


def unit_of(field_name: str) -> str:
    for suffix, unit in _UNITS:
        if field_name.endswith(suffix):
            return unit
    return ""


def type_name(annotation: Any) -> str:
    if isinstance(annotation, type):
        return annotation.__name__
    return str(annotation).replace("typing.", "")


def describe_param(name: str, info: FieldInfo) -> dict[str, str]:
    return {
        "name": name,
        "type": type_name(info.annotation),
        "unit": unit_of(name),
        "default": "required" if info.is_required() else repr(info.get_default(call_default_factory=True)),
        "help": info.description or "",
    }


def describe(kind: type[FaultType]) -> dict[str, Any]:
    return {
        "type": kind.name,
        "layer": kind.layer.value,
        "primitive": kind.primitive.value,
        "description": kind.description,
        "params": [describe_param(n, i) for n, i in kind.model_fields.items()],
    }


def catalog() -> list[dict[str, Any]]:
    """Every registered type, ordered by layer (seed, server, network, client) then name."""
    from scenarios.faults import registry

    order = {"seed": 0, "server": 1, "network": 2, "client": 3}
    kinds = sorted(registry().values(), key=lambda k: (order[k.layer.value], k.name))
    return [describe(k) for k in kinds]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(entries: list[dict[str, Any]] | None = None) -> str:
    """docs/faults.md of `entries` (as `catalog()` describes them; default: the registry's now)."""
    lines = [
        "# Fault types",
        "",
        "Generated from the registry by `webchaos faults --markdown > docs/faults.md`; a test keeps it current.",
        "Every type is declared with the same envelope (`type`, `layer`, `match`, `schedule`, `toxicity`,",
        "`params`); the table lists each type's `params`.",
        "",
    ]
    entries = catalog() if entries is None else entries
    for layer in ("seed", "server", "network", "client"):
        of_layer = [e for e in entries if e["layer"] == layer]
        if not of_layer:
            continue
        lines += [f"## {layer} layer", "", "| type | stresses | what it does | parameters |", "|---|---|---|---|"]
        for e in of_layer:
            params = "<br>".join(
                f"`{p['name']}`: {_cell(p['type'])}"
                + (f" ({p['unit']})" if p["unit"] else "")
                + f", {_cell(p['default'])}"
                + (f" — {_cell(p['help'])}" if p["help"] else "")
                for p in e["params"]
            ) or "(none)"
            lines.append(f"| `{e['type']}` | {e['primitive']} | {_cell(e['description'])} | {params} |")
        lines.append("")
    return "\n".join(lines)
