"""Fill `{placeholders}` in task text and predicates from a world's bindings."""

import re
from typing import Any

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][\w]*(?:\.[\w]+)*)\}")


class BindingError(KeyError):
    pass


def lookup(bindings: dict[str, Any], dotted: str) -> Any:
    value: Any = bindings
    for part in dotted.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            raise BindingError(f"no binding {dotted!r} (known: {', '.join(sorted(bindings))})")
    return value


def fill(template: Any, bindings: dict[str, Any]) -> Any:
    """Recursively fill strings; a string that is exactly one placeholder keeps the value's type."""
    if isinstance(template, str):
        whole = _PLACEHOLDER.fullmatch(template)
        if whole:
            return lookup(bindings, whole.group(1))
        return _PLACEHOLDER.sub(lambda m: str(lookup(bindings, m.group(1))), template)
    if isinstance(template, list):
        return [fill(item, bindings) for item in template]
    if isinstance(template, dict):
        return {key: fill(value, bindings) for key, value in template.items()}
    return template
