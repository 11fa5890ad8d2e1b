"""Typer coerces an option only when it is given.

typer (0.2x) coerces each option of the command it runs with a pydantic TypeAdapter that it builds before it
looks at the value, so an option that was not given (and the help option of every command) imports pydantic and
its plugins: as long as importing typer itself, for `webchaos list` or `faults` a third of their start.
An option not given needs no adapter: typer turns its None into None or () before any coercion. With
`defer_option_coercion()` typer builds the adapter when a value comes, and coerces it as before.

This reaches into typer's private coercion (typer.core._TyperParameter, typer._coercion); a typer without them
is left as it is (the commands then start slower, and tests/harness/test_cli_startup.py says so).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


def defer_option_coercion() -> bool:
    """Install the deferred coercion (once per process); False when this typer has no such seam."""
    try:
        from typer import _coercion
        from typer.core import _TyperParameter
    except ImportError:
        return False
    if getattr(_TyperParameter, "webchaos_deferred_coercion", False):
        return True
    if not (hasattr(_TyperParameter, "get_runtime_param") and hasattr(_coercion, "RuntimeParam")
            and hasattr(_coercion, "build_runtime_param")):
        return False

    @dataclass(frozen=True)
    class DeferredRuntimeParam(_coercion.RuntimeParam):
        """None and () as typer's own; a given value: the coercion typer builds for it, built now."""

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            built = _coercion.build_runtime_param(param.type_descriptor)
            param._runtime_param = built
            return built._coerce_value(value, param=param, ctx=ctx)

    def get_runtime_param(self: Any) -> Any:
        if self._runtime_param is None:
            self._runtime_param = DeferredRuntimeParam(annotation=self.type_descriptor.annotation,
                                                       parameter_info=self.type_descriptor.parameter_info)
        return self._runtime_param

    _TyperParameter.get_runtime_param = get_runtime_param  # type: ignore[method-assign]
    _TyperParameter.webchaos_deferred_coercion = True  # type: ignore[attr-defined]
    return True
