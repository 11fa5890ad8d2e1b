"""Malformed canonical_diff grammar: a ScenarioError naming the task file and the path inside canonical_diff."""

from pathlib import Path

import pytest

from scenarios.loader import ScenarioError, load_catalog
from tests.grader.conftest import SHOP_TASKS, write_catalog

HEAD = """
tasks:
  - id: t1
    site: shop
    title: a task
    instruction: "Add {target.name}"
    plan:
      - {do: goto, url: /}
    canonical_diff:
"""


@pytest.mark.parametrize(
    ("body", "where", "message"),
    [
        ("      creat: []\n", "tasks[0].canonical_diff.creat", "unknown field; allowed: constraints, create"),
        ("      create: [{collection: c, propertes: {}}]\n", "tasks[0].canonical_diff.create[0].propertes",
         "unknown field"),
        ("      create: [{collection: c, properties: {q: {equals: 1}}}]\n", "tasks[0].canonical_diff.create[0]",
         "properties.q: unknown predicate 'equals'"),
        ("      create: [{collection: c, properties: {q: {eq: 1, ne: 2}}}]\n",
         "tasks[0].canonical_diff.create[0]", "exactly one key"),
        ("      create: [{collection: c, properties: {q: {in: 3}}}]\n", "create[0]",
         "properties.q.in: expected a list"),
        ("      create: [{collection: c, properties: {q: {between: [1]}}}]\n", "create[0]",
         "properties.q.between: expected [low, high]"),
        ("      create: [{collection: c, properties: {q: {approx: {value: 1, tol: 2}}}}]\n", "create[0]",
         "properties.q.approx"),
        ("      create: [{collection: c, properties: {q: {matches_semantic: {text: a, threshold: 2}}}}]\n",
         "create[0]", "properties.q.matches_semantic"),
        ("      create: [{collection: c, properties: {q: {regex: '('}}}]\n", "create[0]",
         "properties.q.regex: not a valid regular expression"),
        ("      create: [{collection: c, properties: {q: {length: 3}}}]\n", "create[0]",
         "properties.q.length: a predicate is a mapping"),
        ("      create: [{collection: c, properties: {q: {fields: {a: {bogus: 1}}}}}]\n", "create[0]",
         "properties.q.fields.a: unknown predicate 'bogus'"),
        ("      create: [{collection: c, properties: {q: {all_of: []}}}]\n", "create[0]",
         "properties.q.all_of: expected a non-empty list"),
        ("      create: [{collection: c, properties: {q: {exists: 'yes'}}}]\n", "create[0]",
         "properties.q.exists: expected true or false"),
        ("      create: [{collection: c, properties: {q: {expr: 'x.__class__'}}}]\n", "create[0]",
         "properties.q.expr: expression 'x.__class__' refused"),
        ("      create: [{collection: c, properties: {q: {expr: 'open(1)'}}}]\n", "create[0]",
         "call to 'open' is not allowed"),
        ("      create: [{collection: c, weight: heavy}]\n", "tasks[0].canonical_diff.create[0].weight",
         "valid number"),
        ("      create: [{collection: c, weight: 0}]\n", "tasks[0].canonical_diff.create[0].weight", "greater than 0"),
        ("      invariant: [{collection: c, severity: fatal}]\n", "tasks[0].canonical_diff.invariant[0].severity",
         "'critical', 'high', 'medium' or 'low'"),
        ("      invariant: [{collection: c, preserve: SOME}]\n", "tasks[0].canonical_diff.invariant[0].preserve",
         "ALL"),
        ("      invariant: [{collection: c, filter: 'import os'}]\n", "tasks[0].canonical_diff.invariant[0]",
         "filter: expression 'import os' refused: imports are not allowed"),
        ("      constraints: [{expr: 'True', path: user.name}]\n", "tasks[0].canonical_diff.constraints[0]",
         "exactly one of"),
        ("      constraints: [{collection: orders}]\n", "tasks[0].canonical_diff.constraints[0]",
         "collection and count go together"),
        ("      constraints: [{path: a.b, value: {nope: 1}}]\n", "tasks[0].canonical_diff.constraints[0]",
         "value: unknown predicate 'nope'"),
        ("      oneof: [{create: []}]\n", "tasks[0].canonical_diff", "at least two alternatives"),
        ("      oneof: [{when: '1 +'}, {}]\n", "tasks[0].canonical_diff.oneof[0]",
         "when: expression '1 +' is not valid"),
        ("      oneof: [{}, {creat: []}]\n", "tasks[0].canonical_diff.oneof[1].creat", "unknown field"),
        ("      invariant: [{collection: c}]\n      named_invariants: [{name: n, ref: 'invariant[3]'}]\n",
         "tasks[0].canonical_diff", "named_invariants[0] (n): invariant[3] does not exist"),
        ("      named_invariants: [{name: n, ref: 'create[0]'}]\n", "tasks[0].canonical_diff.named_invariants[0].ref",
         "should match pattern"),
        ("      create: [{collection: c}]\n    subgoals: [{name: g, checks: ['constraints[0]']}]\n", "tasks[0]",
         "constraints[0] does not exist"),
        ("      create: [{collection: c}]\n    subgoals: [{name: g, checks: ['oneof']}]\n", "tasks[0]",
         "oneof does not exist"),
        ("      create: [{collection: c}]\n    subgoals: [{name: g, checks: ['create']}]\n",
         "tasks[0].subgoals[0].checks", "bad check ref 'create'"),
        ("      create: [{collection: c}]\n    process: {evidence: [guess]}\n", "tasks[0].process.evidence[0]",
         "Input should be"),
    ],
)
def test_malformed_grammar_names_file_and_path(tmp_path: Path, body: str, where: str, message: str) -> None:
    path = write_catalog(tmp_path, HEAD + body)
    with pytest.raises(ScenarioError) as info:
        load_catalog(path)
    text = str(info.value)
    assert text.startswith(str(path)), text
    assert where in text, text
    assert message in text, text


def test_the_full_grammar_loads(tmp_path: Path) -> None:
    body = """      create:
        - collection: cart_items
          where: {product_id: {in: "{hard_negative_ids}"}}
          properties:
            quantity: {between: {min: 1, max: 3}}
            product_name: {matches_semantic: {text: "{target.name}", threshold: 0.9}}
            tags: {all_of: [{length: {gte: 1}}, {each: {regex: "^[a-z]+$"}}, {superset: [gift]}]}
            lines: {some: {fields: {sku: {substring_any: [A, B]}}}}
            price: {approx: {value: 9.99, abs: 0.01}}
            note: {not: {substring_all: [x, y]}}
            extra: {expr: "x is None or len(x) < 3"}
      invariant:
        - {collection: orders, filter: "a['status'] != 'cancelled'", preserve: [status], severity: critical}
      constraints:
        - {expr: "len(final['orders']) >= len(initial['orders'])"}
        - {collection: addresses, where: {is_default: {eq: true}}, count: {eq: 1}, severity: medium}
        - {path: user.email, value: {icontains: "@"}}
      oneof:
        - {when: "True", update: [{collection: user, properties: {name: {ne: ""}}}]}
        - {delete: [{collection: cart_items}]}
      named_invariants:
        - {name: Orders kept, ref: "invariant[0]", severity: high}
      ignore: [sessions, user.last_login]
    subgoals:
      - {name: all, checks: ["create[0]", "constraints[2]", "oneof", "oneof[1].delete[0]", "collateral"]}
"""
    task = load_catalog(write_catalog(tmp_path, HEAD + body)).tasks["t1"]
    assert len(task.canonical_diff.oneof) == 2


def test_every_shop_task_carries_a_canonical_diff_and_process_spec() -> None:
    tasks = load_catalog(SHOP_TASKS).tasks
    assert len(tasks) >= 3
    for task in tasks.values():
        diff = task.canonical_diff
        assert diff.create or diff.update or diff.delete or diff.constraints or diff.oneof or task.answer, task.id
        assert task.process.evidence or task.answer is not None, task.id
