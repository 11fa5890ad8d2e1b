"""docs/tasks.md: every task template of the catalog, per site, with what a user of the catalog asks first
(what kind of job it is, which primitive it is built around, how long its plan is, how many variants run on
it) and per site the spread the task-breadth issues ask for. `webchaos catalog tasks --write` writes it; a
test keeps the committed file current."""

from collections import Counter

from harness.config import PROJECT_ROOT
from scenarios.answers import TASK_KINDS
from scenarios.faults import Primitive
from scenarios.loader import Catalog
from scenarios.schema import Task

TASKS_DOC = PROJECT_ROOT / "docs" / "tasks.md"
LONG_PLAN = 12  # steps: a long task


FILE_STEPS = ("upload", "download")  # a task "with a file" sends or saves one


def with_a_file(task: Task) -> bool:
    return any(step.do in FILE_STEPS for step in task.plan)


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def render(catalog: Catalog) -> str:
    variants: Counter[str] = Counter(task for v in catalog.variants.values() for task in v.tasks)
    by_hand: Counter[str] = Counter(task for v in catalog.variants.values() if v.recipe is None for task in v.tasks)
    by_site: dict[str, list[Task]] = {}
    for task in catalog.tasks.values():
        by_site.setdefault(task.site, []).append(task)
    lines = ["# Tasks", "",
             "Every task template of the catalog, by site (written by `webchaos catalog tasks --write`; a test",
             "keeps it current). *Kind*: `action` changes the site's state, `answer` ends in an answer the",
             "grader checks against the world, `action+answer` both, `infeasible` cannot be done and the right",
             "outcome is to say so. *Primitive*: the one the task is built around. *Steps*: the reference",
             f"plan's length (long: {LONG_PLAN} or more). *File*: the plan uploads or downloads one.",
             "*Variants*: how many variants run on it; *by hand*: how many of them are written for it (a trap",
             "no recipe states) rather than expanded from a recipe.", ""]
    lines.append("| site | tasks | " + " | ".join(TASK_KINDS) + " | long | file | "
                 + " | ".join(p.value.replace("_", " ") for p in Primitive) + " |")
    lines.append("|---|" + "---:|" * (7 + len(Primitive)))
    for site in sorted(by_site):
        tasks = by_site[site]
        kinds = Counter(t.kind for t in tasks)
        own = Counter(p for t in tasks for p in t.primitives)
        lines.append(f"| {site} | {len(tasks)} | " + " | ".join(
            str(kinds[k]) for k in TASK_KINDS)
            + f" | {sum(len(t.plan) >= LONG_PLAN for t in tasks)} | {sum(map(with_a_file, tasks))} | "
            + " | ".join(str(own[p]) for p in Primitive) + " |")
    for site in sorted(by_site):
        lines += ["", f"## {site}", "",
                  "| task | what the user wants | kind | primitive | steps | variants | by hand |",
                  "|---|---|---|---|---:|---:|---:|"]
        for task in sorted(by_site[site], key=lambda t: t.id):
            primitives = ", ".join(p.value for p in task.primitives)
            lines.append(f"| `{task.id}` | {_cell(task.title)} | {task.kind} | {primitives} | {len(task.plan)} | "
                         f"{variants[task.id]} | {by_hand[task.id]} |")
    return "\n".join(lines) + "\n"
