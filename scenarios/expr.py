"""A small, safe expression language for predicates, filters and constraints.

Expressions are parsed once (cached), checked statically against a whitelist, then
evaluated by `simpleeval` (never Python's `eval`). Refused with an `ExprError`:
statements and imports, names or attributes starting with an underscore (dunder
access), lambdas, and calls to anything but the functions in `SAFE_FUNCTIONS` and
the methods in `SAFE_METHODS`.

Names available at evaluation time depend on the caller; the grader provides
`x` (the value under test), `target`, `initial`, `final`, `bindings` and, for
entity predicates, `entity` / `before` (and `a` in invariant filters).
"""

import ast
import threading
from functools import lru_cache
from typing import Any

from simpleeval import EvalWithCompoundTypes, InvalidExpression

SAFE_FUNCTIONS: dict[str, Any] = {
    "len": len, "abs": abs, "min": min, "max": max, "sum": sum, "round": round, "sorted": sorted,
    "any": any, "all": all, "str": str, "int": int, "float": float, "bool": bool, "set": set,
    "list": list, "tuple": tuple,
}
SAFE_METHODS: dict[type, frozenset[str]] = {
    str: frozenset({"lower", "upper", "casefold", "strip", "lstrip", "rstrip", "startswith", "endswith",
                    "split", "replace", "count", "find", "isdigit", "title"}),
    dict: frozenset({"get", "keys", "values", "items"}),
    list: frozenset({"count", "index"}),
    tuple: frozenset({"count", "index"}),
}
_METHOD_NAMES = frozenset().union(*SAFE_METHODS.values())
_ALLOWED_NODES: tuple[type[ast.AST], ...] = (
    ast.Expression, ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.Compare, ast.IfExp, ast.Call, ast.Constant,
    ast.Name, ast.Load, ast.Store, ast.Attribute, ast.Subscript, ast.Slice, ast.List, ast.Tuple, ast.Dict,
    ast.Set, ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp, ast.comprehension, ast.keyword,
    ast.operator, ast.cmpop, ast.boolop, ast.unaryop,
)


_JSON_TYPES = frozenset({dict, list, tuple, str, int, float, bool, type(None)})


class ExprError(ValueError):
    """An expression the safe evaluator refuses (raised when it is compiled, i.e. at load time)."""


def _refuse(source: str, why: str) -> ExprError:
    return ExprError(f"expression {source!r} refused: {why}")


MAX_DEPTH = 100  # AST levels; simpleeval evaluates recursively, so deeper would hit the recursion limit


def _depth(tree: ast.AST) -> int:
    deepest, stack = 0, [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return deepest


@lru_cache(maxsize=4096)
def compile_expr(source: str) -> ast.expr:
    """Parse and check `source`; the result is the AST body simpleeval evaluates."""
    try:
        tree = ast.parse(source.strip(), mode="eval")
    except (RecursionError, MemoryError):  # the parser's own limits, e.g. thousands of nested operators
        raise _refuse(source, "nested too deeply") from None
    except SyntaxError as exc:
        try:
            module = ast.parse(source.strip(), mode="exec")
        except SyntaxError:
            raise ExprError(f"expression {source!r} is not valid: {exc.msg}") from None
        if any(isinstance(n, ast.Import | ast.ImportFrom) for n in ast.walk(module)):
            raise _refuse(source, "imports are not allowed") from None
        raise _refuse(source, "statements are not allowed, only one expression") from None
    if _depth(tree) > MAX_DEPTH:
        raise _refuse(source, f"nested more than {MAX_DEPTH} levels deep")
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED_NODES):
            raise _refuse(source, f"{type(node).__name__} is not allowed")
        if isinstance(node, ast.Name) and node.id.startswith("_"):
            raise _refuse(source, f"name {node.id!r}: names starting with '_' are not allowed")
        if isinstance(node, ast.Attribute):
            if node.attr.startswith("_"):
                raise _refuse(source, f"attribute {node.attr!r}: dunder/private attribute access is not allowed")
            if node.attr not in _METHOD_NAMES:
                raise _refuse(source, f"attribute {node.attr!r} is not allowed; use subscripts, e.g. x['field']")
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name):
                if func.id not in SAFE_FUNCTIONS:
                    raise _refuse(source, f"call to {func.id!r} is not allowed; allowed functions: "
                                          f"{', '.join(sorted(SAFE_FUNCTIONS))}")
            elif not isinstance(func, ast.Attribute):
                raise _refuse(source, "only calls to named functions and whitelisted methods are allowed")
    return tree.body


class _Evaluator(EvalWithCompoundTypes):
    def __init__(self) -> None:
        super().__init__(functions=dict(SAFE_FUNCTIONS), names={},
                         allowed_attrs={t: set(m) for t, m in SAFE_METHODS.items()})

    def _check_disallowed_items(self, item: Any) -> None:
        # simpleeval walks every container an expression produces, looking for modules and
        # forbidden functions. Our names hold JSON data only (the state, bindings) and calls are
        # whitelisted statically, so a container cannot hold either; skipping the walk keeps
        # `final['products']` O(1) instead of O(state size).
        if type(item) in _JSON_TYPES:
            return
        super()._check_disallowed_items(item)


_local = threading.local()


def evaluate_expr(source: str, names: dict[str, Any]) -> Any:
    """Evaluate a checked expression. Runtime errors (a missing key, a type mismatch) raise ExprRuntimeError."""
    body = compile_expr(source)
    evaluator: _Evaluator | None = getattr(_local, "evaluator", None)
    if evaluator is None:
        evaluator = _local.evaluator = _Evaluator()
    evaluator.names = names
    try:
        return evaluator.eval(source, previously_parsed=body)
    except (InvalidExpression, LookupError, TypeError, ValueError, ArithmeticError, AttributeError) as exc:
        raise ExprRuntimeError(f"{type(exc).__name__}: {exc}") from None


class ExprRuntimeError(RuntimeError):
    """An expression failed while evaluating (e.g. a missing key); predicates treat this as false."""
