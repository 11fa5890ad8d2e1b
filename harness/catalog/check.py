"""`webchaos catalog check`: everything that can be wrong with the catalog, found without a browser.

Loading already refuses schema errors, unknown tasks, fault types and sites, and fault types a
site does not implement (the first one found). Beyond that, for every task on seeds 1-3: each
placeholder resolves from the world's bindings, and each plan step's role + accessible name exists
on the page where the plan expects it (its rendered HTML, fetched in-process from the sites' app);
for every variant: at most two primitives with its task, no two variants with identical faults on
the same task, recipe exclusions naming real tasks; every variant with seed faults opens (its world
is generated and its seed faults applied) on seeds 1-3, which proves the sites' declarations of what
their seed families take true where recipes relied on them, and the tasks a recipe skipped by those
declarations are listed (info); a variant in default runs whose typing-armed client fault cannot fire
on some seed (harness.catalog.fault_reach.py); and per site, at least three variants per target
primitive (a warning for now).
"""

import asyncio
import fnmatch
import json
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlencode, urljoin, urlsplit

import httpx

from grader.answers import check_answer
from grader.bindings import BindingError, fill
from harness.catalog.a11y_html import Page
from harness.catalog.fault_reach import TypedField, dead_typing_fault, field_kind, part_taken, role_unknown
from scenarios.answers import Answer, AnswerSpec
from scenarios.faults import FaultError, Layer, Primitive
from scenarios.loader import Catalog, ScenarioError
from scenarios.schema import Expect, PlanStep, Task
from sites.kit.site import WorldSetup
from sites.registry import all_sites, load_site_catalog
from sites.server import build

SEEDS = (1, 2, 3)
MIN_PER_CELL = 3


@dataclass(frozen=True)
class Finding:
    level: Literal["error", "warning", "info"]
    file: str
    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.level}: {self.file}: {self.where}: {self.message}"


def check_catalog(*roots: Path, seeds: Sequence[int] = SEEDS, tasks: Collection[str] = ()) -> list[Finding]:
    """Every problem of the catalog under `roots` (default: the built-in one), errors first.

    With `tasks`, what is checked per task (placeholders, the plan walk, the client faults it reaches, the seed
    variants opening) is checked for those tasks and their variants only, and the coverage of the whole catalog
    is not judged: what a task author runs while writing one task. Loading and the checks across variants
    (references, primitives, duplicates) still cover the whole catalog: they are what makes it load at all."""
    try:
        catalog = load_site_catalog(*roots)
    except ScenarioError as exc:
        return [Finding("error", exc.file, exc.where, exc.message)]
    unknown = sorted(set(tasks) - set(catalog.tasks))
    if unknown:
        return [Finding("error", "(command line)", "--task",
                        f"unknown task {task!r}; expected one of the catalog's task ids") for task in unknown]
    scope = set(tasks) or None
    findings = [*check_recipe_refs(catalog), *check_primitives(catalog), *check_duplicates(catalog)]
    findings += asyncio.run(check_tasks(catalog, seeds, scope))
    findings += check_seed_variants_open(catalog, seeds, scope)
    findings += skipped_info(catalog, scope)
    if not tasks:
        findings += check_coverage(catalog)
    return sorted(findings, key=lambda f: (_LEVELS.index(f.level), f.file, f.where))


_LEVELS = ("error", "warning", "info")


def _source(catalog: Catalog, kind: str, ident: str) -> str:
    return str(catalog.sources.get(f"{kind}:{ident}", "(catalog)"))


def check_recipe_refs(catalog: Catalog) -> list[Finding]:
    out = []
    for recipe_id, recipe in sorted(catalog.recipes.items()):
        where = f"recipes[{catalog.recipe_index[recipe_id]}]"
        marks = {"unfair": list(recipe.unfair), "ineffective": list(recipe.ineffective),
                 "harmless": list(recipe.harmless) if isinstance(recipe.harmless, dict) else []}
        for field, ids in (("exclude.tasks", recipe.exclude.tasks), *marks.items()):
            for task_id in ids:
                if task_id not in catalog.tasks:
                    out.append(Finding("error", _source(catalog, "recipe", recipe_id), f"{where}.{field}",
                                       f"unknown task {task_id!r}; expected one of the catalog's task ids"))
        for field, ids in marks.items():
            for task_id in ids:
                if task_id in catalog.tasks and f"{recipe_id}@{task_id}" not in catalog.variants:
                    out.append(Finding("error", _source(catalog, "recipe", recipe_id), f"{where}.{field}",
                                       f"recipe {recipe_id!r} makes no variant for task {task_id!r}: nothing to mark"))
    return out


def check_primitives(catalog: Catalog) -> list[Finding]:
    out = []
    for variant in catalog.variants.values():
        for task_id in variant.tasks:
            task = catalog.tasks[task_id]
            together = set(task.primitives) | {variant.target_primitive}
            if len(together) > 2:
                out.append(Finding("error", _source(catalog, "variant", variant.id),
                                   f"variant {variant.id}.target_primitive",
                                   f"with task {task_id!r} it exercises {sorted(p.value for p in together)}; "
                                   "expected at most 2 primitives"))
    return out


def _fault_key(fault: dict[str, Any]) -> str:
    return json.dumps({k: v for k, v in fault.items() if k != "id"}, sort_keys=True)


def check_duplicates(catalog: Catalog) -> list[Finding]:
    seen: dict[tuple[str, str], str] = {}
    out = []
    for variant_id in sorted(catalog.variants):
        variant = catalog.variants[variant_id]
        faults = json.dumps(sorted(_fault_key(f) for f in variant.faults))
        for task_id in variant.tasks:
            other = seen.setdefault((task_id, faults), variant_id)
            if other != variant_id:
                out.append(Finding("error", _source(catalog, "variant", variant_id), f"variant {variant_id}.faults",
                                   f"identical to the faults of variant {other!r} on task {task_id!r}; "
                                   "expected each variant of a task to differ"))
    return out


def coverage(catalog: Catalog, include_marked: bool = False) -> Counter[tuple[str, str]]:
    """(site, primitive) -> number of variants in default runs (with `include_marked`, also those marked
    unfair or ineffective); a variant counts once per site it has tasks on."""
    cells: Counter[tuple[str, str]] = Counter()
    for variant in catalog.variants.values():
        if not variant.by_default and not include_marked:
            continue
        for site in sorted({catalog.tasks[t].site for t in variant.tasks}):
            cells[(site, variant.target_primitive.value)] += 1
    return cells


def check_coverage(catalog: Catalog) -> list[Finding]:
    cells = coverage(catalog)
    out = []
    for site in sorted({t.site for t in catalog.tasks.values()}):
        for primitive in Primitive:
            if cells[(site, primitive.value)] < MIN_PER_CELL:
                out.append(Finding("warning", "(catalog)", f"site {site} × {primitive.value}",
                                   f"{cells[(site, primitive.value)]} variants; expected at least {MIN_PER_CELL}"))
    return out


def _has_seed_faults(faults: list[dict[str, Any]]) -> bool:
    return any(str(f.get("layer")) == Layer.seed.value for f in faults)


def check_seed_variants_open(catalog: Catalog, seeds: Sequence[int] = SEEDS,
                             tasks: Collection[str] | None = None) -> list[Finding]:
    """Every variant with seed faults opens on every seed (on `tasks`, default all): the site's seed hooks take
    its task's world. A recipe's variant that does not means its site declares too wide a scope for the family."""
    _, _, store = build()
    out = []
    for variant_id in sorted(catalog.variants):
        variant = catalog.variants[variant_id]
        if not _has_seed_faults(variant.faults):
            continue
        for task_id in variant.tasks:
            if tasks is not None and task_id not in tasks:
                continue
            task = catalog.tasks[task_id]
            for seed in seeds:
                try:
                    store.create(site=task.site, task_id=task_id, seed=seed, setup=WorldSetup(params=task.setup.params),
                                 variant_id=variant_id, faults=variant.faults,
                                 episode_id=f"check-open-{variant_id}-{task_id}-{seed}")
                except (FaultError, ValueError) as exc:
                    hint = (f"; the site's declaration of what its seed families take (SiteProfile.target) "
                            f"let recipe {variant.recipe!r} expand onto this task") if variant.recipe else ""
                    out.append(Finding("error", _source(catalog, "variant", variant_id), f"variant {variant_id}",
                                       f"does not open on task {task_id!r}, seed {seed}: {exc}{hint}"))
                    break
    return out


def skipped_info(catalog: Catalog, tasks: Collection[str] | None = None) -> list[Finding]:
    """The tasks (of `tasks`, default all) each recipe skipped because the task's site declares its seed family
    cannot take them, and, unscoped, in one line what the recipe budget left out (`webchaos list` would show none
    of those variants)."""
    out = [Finding("info", _source(catalog, "recipe", s.variant_id.split("@", 1)[0]), f"variant {s.variant_id}",
                   f"not expanded: {s.reason}") for s in catalog.skipped if tasks is None or s.task_id in tasks]
    if catalog.over_budget and catalog.recipe_budget is not None and tasks is None:
        cut_tasks = len({s.task_id for s in catalog.over_budget})
        out.append(Finding("info", str(catalog.sources.get("recipe_budget", "(catalog)")), "recipe_budget",
                           f"{len(catalog.over_budget)} recipe variants on {cut_tasks} tasks left out "
                           f"({catalog.recipe_budget.per_task_and_primitive} per task and primitive)"))
    return out


# --- tasks: placeholders and the plan over the rendered pages ---------------------------------------------

def _placeholders(task: Task, bindings: dict[str, Any]) -> tuple[str, str] | None:
    """(field, problem) for the first placeholder of `task` that `bindings` cannot fill."""
    sections: list[tuple[str, Any]] = [("instruction", task.instruction)]
    sections += [(f"plan[{i}]", s.model_dump(exclude_none=True)) for i, s in enumerate(task.plan)]
    sections += [("canonical_diff", task.canonical_diff.model_dump(exclude_none=True)),
                 ("process", task.process.model_dump(exclude_none=True))]
    for field, value in sections:
        try:
            fill(value, bindings)
        except BindingError as exc:
            return field, str(exc.args[0])
    return None


@dataclass
class _Browser:
    """A page-by-page reader of one episode's rendered HTML (no scripts run)."""

    client: httpx.AsyncClient
    url: str = ""
    page: Page | None = None
    # with a list: each page opened (path, page) while the world is as generated (no write made yet)
    rendered: list[tuple[str, Page]] | None = None
    unwritten: bool = True

    async def open(self, url: str) -> str | None:
        response = await self.client.get(url)
        hops = 0
        while response.is_redirect and hops < 5:
            url = urljoin(url, response.headers["location"])
            response = await self.client.get(url)
            hops += 1
        if response.status_code != 200:
            return f"GET {urlsplit(url).path} answered {response.status_code}"
        self.url, self.page = str(response.url), Page(response.text)
        if self.rendered is not None and self.unwritten:
            self.rendered.append((self.path(), self.page))
        return None

    def path(self) -> str:
        return urlsplit(self.url).path


def _expect_problem(page: Page | None, url: str, expect: Expect | None) -> str | None:
    if expect is None or page is None:
        return None
    if expect.role and expect.name and not page.find(expect.role, expect.name):
        return f"expected a {expect.role} named {expect.name!r} after it on {urlsplit(url).path}"
    if expect.text and " ".join(expect.text.split()).lower() not in page.text().lower():
        return f"expected the text {expect.text!r} after it on {urlsplit(url).path}"
    if expect.url_contains and expect.url_contains not in url:
        return f"expected the URL to contain {expect.url_contains!r}, got {url}"
    return None


async def walk_plan(browser: _Browser, plan: list[PlanStep], start_url: str, answer: AnswerSpec | None = None,
                    typed_fields: dict[int, TypedField] | None = None, found_on: dict[int, str] | None = None,
                    held_before: dict[int, str] | None = None) -> tuple[int, str] | None:
    """(step index, problem) for the first plan step whose element is not where the plan expects it.

    Steps that run scripts (a button's click, a key other than a form's Enter) leave the rendered
    page unknown: the steps after them are checked again from the next `goto`; so does an element a page
    lacks while a part of it says it is still loading (`aria-busy="true"`). After a step that writes (its
    `effect`), a `goto`'s page is only checked to render: what it shows depends on the write, which the walk
    does not make. An `answer` step on a
    known page must read an answer that the task's (filled) `answer` block accepts. Given `typed_fields` and
    `found_on`, it records each field it types in and the path each step's element was found on; given
    `held_before`, the steps whose postcondition already holds on the (rendered) page they act on, with its path."""
    problem = await browser.open(start_url)
    if problem:
        return 0, problem
    typed: dict[str, str] = {}
    known = True
    wrote = False  # a step that writes has run: pages from here show what the write changed, not rendered here
    for index, step in enumerate(plan):
        if index and plan[index - 1].effect is not None:
            wrote = True
            browser.unwritten = False
        if step.do == "goto":
            assert step.url is not None
            problem = await browser.open(urljoin(browser.url, step.url))
            if not wrote:
                problem = problem or _expect_problem(browser.page, browser.url, step.expect)
            if problem:
                return index, problem
            known = not wrote
            continue
        if not known:
            _note_held(held_before, index, step, browser, page_known=False)
        if not known or browser.page is None:
            if step.do == "fill" and browser.page is not None and typed_fields is not None:
                # the page may have changed by script (shown a hidden part, say), but a field's type is its
                # markup's: read it off the page as last rendered
                seen = browser.page.find(step.role or "", step.name or "", step.exact, step.within, hidden_too=True)
                if seen:
                    typed_fields[index] = TypedField(step.name or "", field_kind(seen[0].tag, seen[0].attrs), "",
                                                     step.value or "")
            continue
        if step.do == "answer" and step.infeasible:  # names no element: only its expect is checked
            problem = _expect_problem(browser.page, browser.url, step.expect)
            if problem:
                return index, problem
            continue
        assert step.role is not None and step.name is not None
        found = browser.page.find(step.role, step.name, step.exact, step.within)
        if not found and browser.page.loading():
            known = False  # a part still loading by script (aria-busy) may bring it: not rendered here
            continue
        if not found:
            return index, (f"no {step.role} named {step.name!r} on {browser.path()} (the page the plan is on "
                           "at this step); expected one")
        element = found[0]
        _note_held(held_before, index, step, browser, page_known=True)
        if step.page and not fnmatch.fnmatchcase(browser.path(), step.page):
            return index, f"its page is {browser.path()}, not the declared page {step.page!r}"
        if found_on is not None:
            found_on[index] = browser.path()
        if step.do == "fill":
            typed[element.attrs.get("name", "")] = step.value or ""
            if typed_fields is not None:
                typed_fields[index] = TypedField(step.name, field_kind(element.tag, element.attrs), browser.path(),
                                                 step.value or "")
            continue
        if step.do in ("check", "select", "upload"):
            continue
        if step.do == "answer":
            problem = _answer_problem(step, found, answer)
            if problem:
                return index, problem
            continue
        if step.do == "open_each":
            assert step.until is not None
            hrefs = [n.attrs.get("href", "") for n in found]
            base = browser.url
            for href in hrefs:
                problem = await browser.open(urljoin(base, href))
                if problem is None and _expect_problem(browser.page, browser.url, step.until) is None:
                    break
            else:
                until = step.until.model_dump(exclude_none=True)
                return index, f"none of the {len(hrefs)} pages its links open shows {until}"
            continue
        navigated = False
        # a download's link opens its file here as the agent opens what it downloaded
        if step.do in ("click", "download") and step.role == "link" \
                and element.attrs.get("href", "").strip() not in ("", "#"):
            problem = await browser.open(urljoin(browser.url, element.attrs["href"]))
            navigated = True
        elif step.do == "press" and step.key == "Enter" and (form := element.ancestor("form")) is not None \
                and form.attrs.get("method", "get").lower() == "get":
            fields = {n.attrs["name"]: n.attrs.get("value", "") for n in browser.page.nodes
                      if n.tag == "input" and "name" in n.attrs and n.ancestor("form") is form}
            fields.update({k: v for k, v in typed.items() if k in fields})
            action = urljoin(browser.url, form.attrs.get("action") or browser.path())
            problem = await browser.open(f"{action}?{urlencode(fields)}")
            navigated = True
        if problem:
            return index, problem
        if navigated:
            problem = _expect_problem(browser.page, browser.url, step.expect)
            if problem:
                return index, problem
        else:
            known = False  # a script runs: what the page becomes is not rendered here
    return None


def _note_held(held_before: dict[int, str] | None, index: int, step: PlanStep, browser: _Browser,
               page_known: bool) -> None:
    """Record step `index` in `held_before` when its postcondition already holds on the page it acts on. On a
    page a script changed since it rendered (`page_known` false), only a text can be told: one the rendering
    had (a rail's folder name, a breadcrumb) is still there. Without `held_before` nothing is recorded."""
    if held_before is None or browser.page is None or not _vacuous(step):
        return
    if not page_known and not _text_only(step.expect):
        return
    if _expect_problem(browser.page, browser.url, step.expect) is None:
        held_before[index] = browser.path()


def _vacuous(step: PlanStep) -> bool:
    """Whether a postcondition that already holds before the step would say nothing of it: a step that acts
    (a click, a press, a download) and expects a page, a heading or a text (not a control's value, which the
    rendered page does not show as a script set it)."""
    return step.do in ("click", "press", "download") and step.expect is not None and step.expect.value is None


def _text_only(expect: Expect | None) -> bool:
    return expect is not None and bool(expect.text) and not (expect.role or expect.url_contains)


def _answer_problem(step: PlanStep, found: list[Any], spec: AnswerSpec | None) -> str | None:
    """What the answer step reads off the rendered page, refused by the task's answer block (or None)."""
    read = [node.text() for node in (found if step.each else found[:1])]
    cut = [step.cut_answer(text) for text in read]
    texts = [text for text in cut if text is not None]
    if len(texts) < len(cut):
        return f"its text {read!r} has no match for pattern {step.pattern!r}"
    if spec is None:
        return None
    check = check_answer(spec, Answer(value=texts if step.each else texts[0]))
    return None if check.passed else (f"it reads {check.given}, which the answer block refuses: expected "
                                      f"{check.expected} ({check.detail})")


async def effects_met_before(browser: _Browser, plan: list[PlanStep], start_url: str) -> list[int]:
    """The plan's write steps whose `effect` already holds on the world as it is before any write: a check an
    agent makes before writing again that passes whether or not the write happened (after a failed write, the
    agent finds it met and goes on without it). A check on a control's value is left alone (the rendered page
    does not say what a script set)."""
    met = []
    for index, step in enumerate(plan):
        effect = step.effect
        if effect is None or effect.expect.value is not None:
            continue
        if await browser.open(urljoin(start_url, effect.visit)) is None \
                and _expect_problem(browser.page, browser.url, effect.expect) is None:
            met.append(index)
    return met


def _unreachable_client_faults(catalog: Catalog, task_id: str, seed: int, host: str, plan: list[PlanStep],
                               walked: "_Walked", bindings: dict[str, Any]) -> list[Finding]:
    """The task's variants in default runs with a client fault that cannot reach what it names on this seed
    (harness/catalog/fault_reach.py): one waiting for typing that never comes, or one the runtime would put on
    another step's control. One finding per variant, the first such fault's."""
    out = []
    for variant in catalog.variants_for(task_id, include_marked=False):
        for fault in (f for f in variant.faults if f.get("layer") == "client"):
            dead = dead_typing_fault(fault, plan, walked.typed, walked.found_on, bindings) \
                or role_unknown(fault, walked.rendered)
            taken = None if dead else part_taken(fault, host, bindings, plan, walked.rendered)
            if dead or taken:
                why = (f"cannot fire on task {task_id!r} (seed {seed}): {dead}; leave the task out of its recipe "
                       "or mark the variant ineffective") if dead else (
                       f"would act on another control on task {task_id!r} (seed {seed}): {taken}; bind it to a "
                       "name no other control holds, or mark the variant unfair")
                out.append(Finding("error", _source(catalog, "variant", variant.id), f"variant {variant.id}",
                                   f"its {fault['type']} fault {why}"))
                break
    return out


@dataclass
class _Walked:
    """What the plan walk saw of one seed's pages: the fields it typed in, where each step's element was, and
    the pages it opened before any write."""

    typed: dict[int, TypedField]
    found_on: dict[int, str]
    rendered: list[tuple[str, Page]]
    held_before: dict[int, str]


async def check_tasks(catalog: Catalog, seeds: Sequence[int] = SEEDS,
                      tasks: Collection[str] | None = None) -> list[Finding]:
    public, _, store = build()
    sites = all_sites()
    out: list[Finding] = []
    for task_id in sorted(catalog.tasks if tasks is None else tasks):
        task = catalog.tasks[task_id]
        path = _source(catalog, "task", task_id)
        site = sites[task.site]
        held_told: set[int] = set()  # steps already said to hold before they act (on an earlier seed)
        for seed in seeds:
            episode_id = f"check-{task_id}-{seed}"
            episode = store.create(site=task.site, task_id=task_id, seed=seed,
                                   setup=WorldSetup(params=task.setup.params), episode_id=episode_id)
            start_url = f"http://{site.host}{task.setup.start_path}"
            bindings = {**episode.bindings, "start_url": start_url}
            unresolved = _placeholders(task, bindings)
            if unresolved:
                out.append(Finding("error", path, f"task {task_id}.{unresolved[0]}",
                                   f"a placeholder does not resolve on seed {seed}: {unresolved[1]}"))
                break
            plan = [PlanStep.model_validate(fill(s.model_dump(exclude_none=True), bindings)) for s in task.plan]
            async with httpx.AsyncClient(transport=httpx.ASGITransport(app=public), base_url=f"http://{site.host}",
                                         headers={"x-webchaos-episode": episode_id}) as client:
                spec = (AnswerSpec.model_validate(fill(task.answer.model_dump(exclude_defaults=True), bindings))
                        if task.answer is not None and not task.answer.infeasible else None)
                walked = _Walked({}, {}, [], {})
                missing = await walk_plan(_Browser(client, rendered=walked.rendered), plan, start_url, spec,
                                          walked.typed, walked.found_on, walked.held_before)
                met = [] if missing else await effects_met_before(_Browser(client), plan, start_url)
            out += _unreachable_client_faults(catalog, task_id, seed, site.host, plan, walked, bindings)
            for index in met[:1]:
                # the first write's check fails the agent for sure; a later one's may be undone by an earlier write
                first = index == next(i for i, s in enumerate(plan) if s.effect is not None)
                effect = task.plan[index].effect
                assert effect is not None
                wanted = effect.expect.model_dump(exclude_none=True, exclude={"timeout_ms"})
                out.append(Finding("error" if first else "warning", path, f"task {task_id}.plan[{index}].effect",
                                   f"{wanted} already holds on {effect.visit} before the write (seed {seed}): it "
                                   "cannot show the write happened; expect what only the write brings"))
            for index, page in walked.held_before.items():
                postcondition = task.plan[index].expect
                if index in held_told or postcondition is None:
                    continue
                held_told.add(index)
                # a warning: an agent whose step failed goes on as if it had not; the step after it may still
                # stop it (it acts on what only the step brings)
                shown = postcondition.model_dump(exclude_none=True, exclude={"timeout_ms"})
                out.append(Finding("warning", path, f"task {task_id}.plan[{index}].expect",
                                   f"{shown} already holds on {page}, the page the step acts on (seed {seed}): it "
                                   "cannot show the step happened; expect what only the step brings"))
            if missing:
                index, problem = missing
                step = task.plan[index]
                out.append(Finding("error", path, f"task {task_id}.plan[{index}]",
                                   f"{step.do} {step.role or step.url} {step.name or ''!r}: {problem} (seed {seed})"))
                break
    return out
