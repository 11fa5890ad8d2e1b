"""No test asserts that something took less than a couple of seconds.

A loaded machine stalls a process for hundreds of milliseconds now and then (a fresh clone on two cores
failed twice on "within 200 ms"), so an upper bound in ms tests the machine, not the code. Tests assert
order, causality and counts; how fast something is belongs to a benchmark under benchmarks/.

This reads every test module's syntax tree and flags each comparison inside an `assert` that puts an
upper bound below MIN_BOUND_S on a wall-clock quantity: a value read from a clock (time.monotonic(),
time.perf_counter(), time.time(), loop.time()), a name assigned from one, or a name that says it is a
duration (`elapsed`, `took`, `waited`, `*_ms`, ...). Lower bounds (a delayed request took at least its
delay) cannot be broken by a stall and pass. The unit is inferred: seconds from a clock, milliseconds from
a `_ms` name or a `* 1000`; a duration of unknown unit is taken as milliseconds (the stricter reading).
"""

from __future__ import annotations

import ast
import importlib
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
MIN_BOUND_S = 2.0
CLOCKS = {"monotonic", "perf_counter", "time", "monotonic_ns", "perf_counter_ns", "time_ns"}
DURATION_NAME = re.compile(r"(^|_)(elapsed|took|waited|duration|latency|lag)($|_)|(^|_)ms$|_s$", re.IGNORECASE)
MS_NAME = re.compile(r"(^|_)ms($|_)", re.IGNORECASE)

# (file relative to tests/, test function) -> why its upper bound stays. Keep it empty if you can.
ALLOWED: dict[tuple[str, str], str] = {
    ("proxy_addons/test_release.py",
     "test_paced_responses_go_one_at_a_time_while_a_release_is_close_and_all_at_once_otherwise"):
        "the release clock's pacing is defined in milliseconds (PACE_S 1.5 ms, PACE_HORIZON_S 20 ms): its "
        "behaviour is timing; the bound holds for the best of three attempts, so a stall must spoil all three",
}

S, MS, UNKNOWN = "s", "ms", "?"


@dataclass
class Finding:
    path: str
    function: str
    line: int
    text: str


def _is_clock_call(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return name in CLOCKS and not node.args


def _name_of(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript):
        key = node.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            return key.value
        return _name_of(node.value)
    return None


@dataclass
class Point:
    """A moment read from a clock plus a constant (`loop.time() + 0.5`, or a name assigned one)."""

    offset: float  # the constants added, through the names it uses
    extra: float  # the constants added here, names counted as 0 (`deadline + 0.2`: 0.2)
    fresh: bool  # it reads a clock itself, at the assert (later than any name it is compared with)
    line: int  # where the latest name it uses was assigned


class Scope:
    """The clock-derived names of one function (or module): durations with their unit, and time points."""

    def __init__(self, outer: Scope | None = None) -> None:
        self.units: dict[str, str] = dict(outer.units) if outer else {}
        self.points: dict[str, tuple[float, int]] = dict(outer.points) if outer else {}

    def unit(self, node: ast.AST) -> str | None:
        """The unit of a clock-derived expression (S, MS, UNKNOWN), or None when it is not one."""
        if _is_clock_call(node):
            return S
        if isinstance(node, ast.Constant):
            return None
        if isinstance(node, ast.BinOp):
            left, right = self.unit(node.left), self.unit(node.right)
            inner = left or right
            if inner is None:
                return None
            other = node.right if left else node.left
            scale = other.value if isinstance(other, ast.Constant) and isinstance(other.value, int | float) else None
            if isinstance(node.op, ast.Mult) and scale == 1000:
                return MS
            if isinstance(node.op, ast.Div) and scale == 1000 and node.right is other:
                return S
            return inner
        if isinstance(node, ast.UnaryOp):
            return self.unit(node.operand)
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in ("abs", "min", "max", "round", "float", "int", "sum"):
                for arg in node.args:
                    if (found := self.unit(arg)) is not None:
                        return found
            return None
        name = _name_of(node)
        if name is None:
            return None
        base = node.id if isinstance(node, ast.Name) else _name_of(node.value) if isinstance(node, ast.Subscript) \
            else None
        if base in self.units:
            return self.units[base]  # type: ignore[index]
        if base in self.points:
            return S
        if MS_NAME.search(name):
            return MS
        if DURATION_NAME.search(name):
            return S if name.lower().endswith("_s") else UNKNOWN
        return None

    def point(self, node: ast.AST, constants: dict[str, float]) -> tuple[int, Point] | None:
        """(clock readings it adds up, net: 1 for a point, 0 for a duration or a constant; the Point) or None."""
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
            return 0, Point(float(node.value), float(node.value), False, 0)
        if _is_clock_call(node):
            return 1, Point(0.0, 0.0, True, 0)
        base = node.value if isinstance(node, ast.Subscript) else node
        if isinstance(base, ast.Name):
            if base.id in self.points:
                offset, line = self.points[base.id]
                return 1, Point(offset, 0.0, False, line)
            if base.id in constants and base is node:
                return 0, Point(constants[base.id], constants[base.id], False, 0)
            return None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            inner = self.point(node.operand, constants)
            if inner is None or inner[0]:
                return None
            return 0, Point(-inner[1].offset, -inner[1].extra, False, 0)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub | ast.Mult | ast.Div):
            left, right = self.point(node.left, constants), self.point(node.right, constants)
            if left is None or right is None:
                return None
            (n1, a), (n2, b) = left, right
            line = max(a.line, b.line)
            fresh = a.fresh or b.fresh
            if isinstance(node.op, ast.Add):
                return n1 + n2, Point(a.offset + b.offset, a.extra + b.extra, fresh, line)
            if isinstance(node.op, ast.Sub):
                return n1 - n2, Point(a.offset - b.offset, a.extra - b.extra, fresh, line)
            if n1 or n2 or fresh:
                return None  # scaling a clock reading: a duration in other units, handled by unit()
            if isinstance(node.op, ast.Mult):
                return 0, Point(a.offset * b.offset, a.extra * b.extra, False, 0)
            if not b.offset:
                return None
            return 0, Point(a.offset / b.offset, a.extra / b.extra if b.extra else 0.0, False, 0)
        return None

    def learn(self, statement: ast.stmt, constants: dict[str, float]) -> None:
        """Record names assigned from clock-derived values (x = ..., x[k] = ..., x.append(...))."""
        value: ast.expr | None = None
        targets: list[ast.expr] = []
        if isinstance(statement, ast.Assign | ast.AnnAssign) and statement.value is not None:
            value = statement.value
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        elif isinstance(statement, ast.Expr) and isinstance(call := statement.value, ast.Call):
            func = call.func
            if isinstance(func, ast.Attribute) and func.attr == "append" and call.args:
                value, targets = call.args[0], [func.value]
        if value is None:
            return
        point = self.point(value, constants)
        unit = self.unit(value)
        for target in targets:
            base = target.value if isinstance(target, ast.Subscript) else target
            if not isinstance(base, ast.Name):
                continue
            if point is not None and point[0] == 1:
                self.points[base.id] = (point[1].offset, statement.lineno)
            elif unit is not None:
                self.units[base.id] = unit


    def learn_mutations(self, function: ast.AST, inner: Scope, constants: dict[str, float]) -> None:
        """What a nested function appends to (or stores in) names it does not assign: the outer ones."""
        local = {t.id for n in ast.walk(function) if isinstance(n, ast.Assign | ast.AnnAssign)
                 for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)}
        for node in ast.walk(function):
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
                func = node.value.func
                if (isinstance(func, ast.Attribute) and func.attr == "append" and isinstance(func.value, ast.Name)
                        and func.value.id not in local):
                    inner_scope = Scope(inner)
                    inner_scope.learn(node, constants)
                    name = func.value.id
                    if name in inner_scope.points:
                        self.points[name] = inner_scope.points[name]
                    elif name in inner_scope.units:
                        self.units[name] = inner_scope.units[name]


def _upper_bounds(compare: ast.Compare) -> list[tuple[ast.AST, ast.AST]]:
    """(lesser, greater) for every `a < b` / `a <= b` / `b > a` / `b >= a` link of a (chained) comparison."""
    out = []
    operands = [compare.left, *compare.comparators]
    for op, left, right in zip(compare.ops, operands[:-1], operands[1:], strict=True):
        if isinstance(op, ast.Lt | ast.LtE):
            out.append((left, right))
        elif isinstance(op, ast.Gt | ast.GtE):
            out.append((right, left))
    return out


def _too_tight(lesser: ast.AST, greater: ast.AST, scope: Scope, constants: dict[str, float]) -> bool:
    """Does `lesser <= greater` bound a measured time from above with less than MIN_BOUND_S to spare?
    A stall makes whatever is read later larger: an upper bound on the later reading is what it breaks."""
    low, high = scope.point(lesser, constants), scope.point(greater, constants)
    if high is not None and high[0] == 1:  # below a time point (plus a constant)
        if low is not None and low[0] == 1:
            later_is_lesser = low[1].fresh or (not high[1].fresh and low[1].line > high[1].line)
            return later_is_lesser and high[1].offset - low[1].offset < MIN_BOUND_S
        # something measured (a read's time, say) within a window after a point: `held_at < deadline + 0.2`
        return low is None and high[1].extra != 0 and abs(high[1].extra) < MIN_BOUND_S
    if high is not None and high[0] == 0 and not high[1].fresh:  # below a constant
        unit = scope.unit(lesser)
        if unit is None or (low is not None and low[0] == 1):
            return False
        limit_s = high[1].offset if unit == S else high[1].offset / 1000
        return limit_s < MIN_BOUND_S
    return False


def _module_constants(tree: ast.Module) -> dict[str, float]:
    """Numeric constants of the module: its own (`DELAY_MS = 600`) and UPPER_CASE ones it imports."""
    constants: dict[str, float] = {}
    for statement in tree.body:
        if isinstance(statement, ast.ImportFrom) and statement.module and not statement.level:
            wanted = [alias for alias in statement.names if alias.name.isupper()]
            if not wanted:
                continue
            try:
                module = importlib.import_module(statement.module)
            except ImportError:
                continue
            for alias in wanted:
                value = getattr(module, alias.name, None)
                if isinstance(value, int | float) and not isinstance(value, bool):
                    constants[alias.asname or alias.name] = float(value)
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target = statement.targets[0]
            found = Scope().point(statement.value, constants)
            if isinstance(target, ast.Name) and found is not None and found[0] == 0 and not found[1].fresh:
                constants[target.id] = found[1].offset
    return constants


def timing_asserts(source: str, path: str = "<test>") -> list[Finding]:
    """Every assert in `source` that bounds a clock-derived quantity from above below MIN_BOUND_S."""
    tree = ast.parse(source)
    constants = _module_constants(tree)
    module_scope = Scope()
    for statement in tree.body:
        module_scope.learn(statement, constants)
    findings: list[Finding] = []

    def visit(body: list[ast.stmt], scope: Scope, function: str) -> None:
        for statement in body:
            if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
                inner_scope = Scope(scope)
                visit(statement.body, inner_scope, function if function != "<module>" else statement.name)
                if function != "<module>":  # a closure's appends to the outer function's lists count there
                    scope.learn_mutations(statement, inner_scope, constants)
                continue
            if isinstance(statement, ast.ClassDef):
                visit(statement.body, scope, function)
                continue
            scope.learn(statement, constants)
            if isinstance(statement, ast.Assert):
                compares = [n for n in ast.walk(statement.test) if isinstance(n, ast.Compare)]
                if any(_too_tight(lesser, greater, scope, constants)
                       for compare in compares for lesser, greater in _upper_bounds(compare)):
                    findings.append(Finding(path, function, statement.lineno, ast.unparse(statement.test)))
            inner: list[ast.stmt] = []
            for field in ("body", "orelse", "finalbody"):
                part = getattr(statement, field, None)
                if isinstance(part, list):
                    inner += [s for s in part if isinstance(s, ast.stmt)]
            for handler in getattr(statement, "handlers", []):
                inner += handler.body
            if inner and not isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                visit(inner, scope, function)

    visit(tree.body, module_scope, "<module>")
    return findings


def test_no_test_bounds_a_duration_from_above_below_two_seconds() -> None:
    findings = []
    for file in sorted(TESTS.rglob("*.py")):
        relative = str(file.relative_to(TESTS))
        for finding in timing_asserts(file.read_text("utf-8"), relative):
            if (finding.path, finding.function) not in ALLOWED:
                findings.append(finding)
    assert not findings, "timing assertions (assert order, causality or counts; time it in benchmarks/):\n" + \
        "\n".join(f"  tests/{f.path}:{f.line} in {f.function}: assert {f.text}" for f in findings)


def test_every_allowed_exception_still_exists_and_says_why() -> None:
    for (path, function), why in ALLOWED.items():
        assert why.strip(), (path, function)
        assert any(f.function == function for f in timing_asserts((TESTS / path).read_text("utf-8"), path)), \
            f"{path}::{function} is allowed a timing assertion it no longer has: drop it from ALLOWED"


@pytest.mark.parametrize("source", [
    "def test():\n    start = time.monotonic()\n    x()\n    assert time.monotonic() - start < 0.5",
    "def test():\n    t0 = loop.time()\n    assert 0.05 <= loop.time() - t0 < 0.5",
    "def test():\n    took = (time.monotonic() - s) * 1000\n    assert took < 300",
    "def test():\n    status, took = call()\n    assert status == 504 and 400 <= took < 1500",
    "def test():\n    deadline = loop.time() + 1\n    at = reads[0]\n    assert deadline <= at < deadline + 0.2",
    "def test():\n    took = []\n    took.append(time.perf_counter() - s)\n    assert took[0] < 0.12",
    "def test():\n    assert [abs(x['t_ms'] - t) < 50 for x, t in pairs] == [True]",
    "DELAY_MS = 300\ndef test():\n    fast_ms = go()\n    assert fast_ms < DELAY_MS / 2",
    "def test():\n    elapsed = time.monotonic() - s\n    if x:\n        assert 1.9 > elapsed",
    "def test():\n    deadline = loop.time() + 1.0\n    go()\n    assert loop.time() < deadline - 0.3",
    "def test():\n    with x:\n        t0 = time.perf_counter()\n        go()\n    assert time.perf_counter() - t0 < 1",
])
def test_the_check_finds_upper_bounds_in_ms(source: str) -> None:
    assert len(timing_asserts(source)) == 1, source


@pytest.mark.parametrize("source", [
    "def test():\n    took = (time.monotonic() - s) * 1000\n    assert took >= 300",  # a lower bound
    "def test():\n    elapsed = time.monotonic() - s\n    assert elapsed < 30",  # a generous one
    "def test():\n    assert fast_ms < slow_ms",  # an order between two measurements
    "def test():\n    deadline = time.monotonic() + 20\n    assert time.monotonic() < deadline",  # a timeout
    "def test():\n    assert len(first) < len(BIG) / 2 and count < 3",  # not a time
    "def test():\n    assert abs(head['opened_epoch_ms'] / 1000 - time.time()) < 60",  # seconds, generous
    "def test():\n    deadline = loop.time() + 0.03\n    hold()\n    assert loop.time() >= deadline",  # not early
    "def test():\n    deadline = loop.time() + 0.03\n    assert ticks[0] < deadline",  # an order
])
def test_the_check_lets_lower_bounds_orders_and_generous_bounds_pass(source: str) -> None:
    assert timing_asserts(source) == [], source
