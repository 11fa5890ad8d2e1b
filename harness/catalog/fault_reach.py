"""Client faults checked against the pages a task's plan walks (`webchaos catalog check`): can the fault reach
what it names?

Typing. Some client faults wait for the user to type: `input_corruption` changes what is typed into its field,
and a fault with `after_input_in` (a renamed control, a form that re-renders empty) arms once a named field is
typed in, on the page where it acts. Such a fault can never fire when its field is one Chromium sets rather than
types (a date or a time picker: no keystroke reaches the page), when the value is shorter than the fault needs,
or when the field is typed on another page than the control the fault acts on (an order typed on its quote page
and placed from a review page). The plan walk records each field it types in.

Names. The client runtime finds a fault's target by role and name, exactly, or else by a name that holds the
target's (proxy_addons/client/core.js `byRole`). Where a page shows no control of that exact name when it loads
(hidden until a script shows it, say) but another one whose name holds it ("Schedule send" for "Schedule"), the
fault acts on that other control: the plan's earlier step loses its control, and a robust agent fails for a
reason the variant does not name.

Roles. The runtime gives markup a role only from its own short table (`IMPLICIT_ROLES` in core.js) or from a
`role` attribute: a target whose role is in neither (a named <section> is a "region" to Playwright, not to the
runtime) is waited for in vain, and the fault never fires.
"""

import fnmatch
import functools
import re
from dataclasses import dataclass
from typing import Any

from grader.bindings import BindingError, fill
from harness.catalog.a11y_html import Page
from harness.config import PROJECT_ROOT
from scenarios.schema import PlanStep

# Input types Playwright's fill sets by script (no trusted input event), as a picker would.
SET_NOT_TYPED = frozenset({"date", "time", "datetime-local", "month", "week", "color", "range"})


@dataclass(frozen=True)
class TypedField:
    """A fill step as the plan walk found it: the field's input type ('' for text, or the tag when not an
    input), the path of the page it is on ('' when a script may have changed the page since it was rendered:
    the field was read off the page as rendered last), and the value the plan types."""

    name: str
    kind: str
    path: str
    value: str


def field_kind(tag: str, attrs: dict[str, str]) -> str:
    return attrs.get("type", "").lower() if tag == "input" else tag


def _set_not_typed(typed: TypedField) -> str | None:
    if typed.kind in SET_NOT_TYPED:
        where = f" on {typed.path}" if typed.path else ""
        return (f"its field {typed.name!r} is a {typed.kind} field{where}: it is set, not typed, so no typing "
                "reaches the fault")
    return None


def _field_step(plan: list[PlanStep], name: str, before: int | None = None) -> int | None:
    """The last fill step naming `name` (before plan index `before`, if given)."""
    found = [i for i, s in enumerate(plan) if s.do == "fill" and s.name == name and (before is None or i < before)]
    return found[-1] if found else None


def _target_step(plan: list[PlanStep], match: dict[str, Any], after: int) -> int | None:
    """The first step after `after` that acts on the control the fault's match names."""
    for index, step in enumerate(plan):
        if index > after and step.do != "fill" and step.name == match.get("name") \
                and (match.get("role") is None or step.role == match.get("role")):
            return index
    return None


def dead_typing_fault(fault: dict[str, Any], plan: list[PlanStep], typed: dict[int, TypedField],
                      found_on: dict[int, str], bindings: dict[str, Any]) -> str | None:
    """Why this client fault can never fire on the plan as walked on one seed (None when it can, or when the
    walk did not see enough to say). `typed`: the fill steps the walk typed, by plan index; `found_on`: the
    path of the page each step's element was found on."""
    try:
        fault = fill(fault, bindings)
    except BindingError:
        return None
    match, params = dict(fault.get("match") or {}), dict(fault.get("params") or {})
    if fault.get("type") == "input_corruption":
        index = _field_step(plan, str(match.get("name")))
        if index is None:
            return None
        value, short = plan[index].value or "", int(params.get("min_chars", 0))
        if len(value) < short:
            return (f"the value typed in {plan[index].name!r} ({value!r}) is shorter than the {short} characters "
                    "the fault needs")
        return _set_not_typed(typed[index]) if index in typed else None
    watched = params.get("after_input_in")
    if not watched:
        return None
    target = _target_step(plan, match, -1)
    index = _field_step(plan, str(watched), before=target)
    if index is None or index not in typed:
        return None
    field = typed[index]
    problem = _set_not_typed(field)
    if problem:
        return problem
    target = _target_step(plan, match, index)
    if target is None:
        return None
    where = found_on.get(target) or plan[target].page or match.get("path")
    if field.path and where and not fnmatch.fnmatchcase(field.path, where):
        return (f"its field {field.name!r} is typed on {field.path}, and {plan[target].name!r} is acted on at "
                f"{where}: the fault watches for typing on the page it acts on, where nothing is typed")
    return None


def _step_on(plan: list[PlanStep], role: str, taken: str, target: str) -> int | None:
    """The plan step, other than one naming the fault's own target, that acts on the control named `taken`."""
    for index, step in enumerate(plan):
        name = (step.name or "").lower()
        if step.role != role or not name or name == target or name.startswith("/"):
            continue
        if name == taken or (step.exact is False and name in taken):
            return index
    return None


def part_taken(fault: dict[str, Any], host: str, bindings: dict[str, Any], plan: list[PlanStep],
               rendered: list[tuple[str, Page]]) -> str | None:
    """The first page the plan opens (path, rendered page) where the fault's role + name target has no visible
    exact match, and the runtime would take instead a visible control whose name holds it and which another
    plan step acts on (a control no step uses is left alone: the fault then waits there in vain, harmless)."""
    try:
        fault = fill(fault, bindings)
    except BindingError:
        return None
    match = dict(fault.get("match") or {})
    role, name = match.get("role"), match.get("name")
    if not role or not name or match.get("selector") or match.get("within") \
            or match.get("host", host) != host:
        return None
    wanted = " ".join(str(name).split()).lower()
    for path, page in rendered:
        if match.get("path") and not fnmatch.fnmatchcase(path, str(match["path"])):
            continue
        holding = page.find(str(role), str(name), exact=False)
        if not holding or any(page.name_of(n).lower() == wanted for n in holding):
            continue
        taken = page.name_of(holding[0])
        index = _step_on(plan, str(role), taken.lower(), wanted)
        if index is not None:
            return (f"on {path} no {role} is named {name!r} when the page loads, and the runtime takes "
                    f"{taken!r} instead, which plan step {index} acts on")
    return None


@functools.cache
def runtime_roles() -> frozenset[str]:
    """The roles the client runtime finds by markup alone: the keys of `IMPLICIT_ROLES` in core.js, read from
    the runtime's own source so that the two cannot drift apart."""
    source = (PROJECT_ROOT / "proxy_addons" / "client" / "core.js").read_text()
    table = re.search(r"var IMPLICIT_ROLES = \{(.*?)\n\};", source, re.S)
    if table is None:
        raise RuntimeError("proxy_addons/client/core.js has no IMPLICIT_ROLES table")
    return frozenset(re.findall(r"^\s*(\w+):", table.group(1), re.M))


def role_unknown(fault: dict[str, Any], rendered: list[tuple[str, Page]]) -> str | None:
    """Why the runtime can never find the fault's target by its role: the role is not one it gives markup, and
    no page the plan opens carries it as a `role` attribute."""
    role = str((fault.get("match") or {}).get("role") or "")
    if not role or role in runtime_roles():
        return None
    if any(n.attrs.get("role", "").split()[:1] == [role] for _, page in rendered for n in page.nodes):
        return None
    return (f"the page runtime gives no markup the role {role!r} (proxy_addons/client/core.js IMPLICIT_ROLES) "
            "and no page the plan opens has an element with that role attribute")
