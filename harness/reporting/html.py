"""The run as one static page: runs/<run-id>/report.html.

Self-contained (inline CSS, a few lines of inline JS for sorting and filtering; no external
assets). Links to an episode's files and screenshots are relative to the run folder, so the
folder can be moved or archived whole. Everything read from disk is optional: a missing episode
folder or a broken ledger line shows as such instead of failing the report.
"""

import json
import os
from collections import defaultdict
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from grader.aggregate import run_aggregates
from harness.reporting.table import PRIMITIVE_ORDER, UNPROVEN_NOTE, specific_cells
from harness.run.results import EpisodeResult, RunConfig, RunSummary
from harness.run.usage import AgentUsage, cost_per_success_shown, dollars_shown, reported_usage, tokens_in_out_shown

TEMPLATES = Path(__file__).parent / "templates"
REPORT_NAME = "report.html"
LEDGER_LIMIT = 200  # ledger lines shown per episode (the file itself is linked)
DETAIL_CHARS = 400  # a ledger line's detail, as compact JSON, is cut here
LOG_LIMIT = 200
EPISODE_FILES = ("replay.html", "trace.har", "faults.jsonl", "events.jsonl", "actions.jsonl", "rrweb.jsonl",
                 "result.json", "episode.json", "state_initial.json", "state_final.json", "agent.log")
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".gif")
AGENT_COLOURS = ("#3b6ea5", "#d08a2e", "#3f8f7a", "#8a5aa8", "#b5534f", "#6b7b8c")


@cache
def _environment() -> Environment:
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=True, undefined=StrictUndefined,
                      trim_blocks=True, lstrip_blocks=True)
    env.filters["pct"] = lambda x: "–" if x is None else f"{100 * x:.0f}%"
    env.filters["num"] = lambda x, digits=2: "–" if x is None else f"{x:.{digits}f}"
    return env


def _href(*parts: str) -> str:
    """A relative URL from path segments, each percent-encoded."""
    return "/".join(quote(p, safe="") for p in parts)


def _size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KB"
    return f"{n / 1024 / 1024:.1f} MB"


def rate_colour(rate: float | None) -> str:
    """A muted red → amber → green background for a success rate in [0, 1]."""
    if rate is None:
        return "transparent"
    rate = min(1.0, max(0.0, rate))
    return f"hsl({round(4 + 128 * rate)}, 52%, {round(86 - 4 * abs(rate - 0.5))}%)"


def delta_colour(delta: float) -> str:
    """Blue when the first agent does better, red when worse, white when equal."""
    if abs(delta) < 1e-9:
        return "#fff"
    return f"hsl({212 if delta > 0 else 4}, 58%, {round(95 - 22 * min(1.0, abs(delta)))}%)"


def _when(text: str | None) -> str:
    if not text:
        return "–"
    try:
        return datetime.fromisoformat(text).strftime("%Y-%m-%d %H:%M:%S %Z").strip()
    except ValueError:
        return text


def _duration(start: str | None, end: str | None) -> str | None:
    try:
        seconds = (datetime.fromisoformat(end or "") - datetime.fromisoformat(start or "")).total_seconds()
    except ValueError:
        return None
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes} min {secs:02d} s" if minutes else f"{secs} s"


def executor_label(config: RunConfig | None) -> str | None:
    """Where the run's episodes ran, as `webchaos run` was told (None when run.json does not say)."""
    if config is None:
        return None
    if config.executor != "ray":
        return f"local · {config.concurrency} at once"
    where = "a new Ray instance here" if config.address is None else f"Ray at {config.address}"
    workers = "one worker per node" if config.workers is None else \
        f"{config.workers} worker{'s' if config.workers != 1 else ''}"
    return f"{where} · {workers} · {config.concurrency} at once each"


def _primitive_order(p: str) -> tuple[int, str]:
    return (PRIMITIVE_ORDER.index(p) if p in PRIMITIVE_ORDER else len(PRIMITIVE_ORDER), p)


# ---------------------------------------------------------------- run-level sections


def _agents(summary: RunSummary, agg: dict[str, Any]) -> list[str]:
    names = {r.agent for r in summary.episodes} | set(agg.get("score_matrix") or {})
    first_seen = {r.agent: i for i, r in reversed(list(enumerate(summary.episodes)))}
    return sorted(names, key=lambda a: (first_seen.get(a, len(first_seen)), a))


def _usage_card(usage: AgentUsage | None) -> dict[str, str] | None:
    """A card's usage lines; "not reported" (never zero) for what the agent did not report."""
    if usage is None:
        return None
    return {"reported": f"{usage.reported}/{usage.episodes}", "tokens": tokens_in_out_shown(usage),
            "cost_mean": dollars_shown(usage.cost_usd.mean if usage.cost_usd else None),
            "cost_total": dollars_shown(usage.cost_usd.total if usage.cost_usd else None),
            "cost_per_success": cost_per_success_shown(usage), "models": ", ".join(usage.models)}


def _cards(summary: RunSummary, agents: list[str], colours: dict[str, str]) -> list[dict[str, Any]]:
    cards = []
    info = {a.name: a for a in summary.agents}
    usage = reported_usage(summary) or {}  # no usage lines at all when nobody reported
    for agent in agents:
        rs = [r for r in summary.episodes if r.agent == agent]
        about = info.get(agent)
        ran = [r for r in rs if not r.infra_failed]  # infrastructure errors say nothing about the agent
        base = [r for r in ran if not r.variant_id and not r.profile]
        variants = [r for r in ran if r.variant_id]
        profiled = [r for r in ran if not r.variant_id and r.profile]
        passed = sum(r.success for r in ran)
        cards.append({
            "agent": agent, "colour": colours[agent], "passed": passed, "total": len(ran),
            "rate": passed / len(ran) if ran else None,
            "mean_score": sum(r.score for r in ran) / len(ran) if ran else None,
            "base": (sum(r.success for r in base), len(base)),
            "variants": (sum(r.success for r in variants), len(variants)),
            "profiled": (sum(r.success for r in profiled), len(profiled)),
            "errors": len(rs) - len(ran),
            "recoveries": sum(r.outcome.recoveries for r in ran),
            "mean_s": sum(r.timings.total_ms for r in ran) / len(ran) / 1000 if ran else None,
            "command": about.command if about else None,
            "browser": about.browser if about else None,
            "usage": _usage_card(usage.get(agent)),
        })
    return cards


def _matrix(agg: dict[str, Any], agents: list[str]) -> dict[str, Any]:
    matrix: dict[str, dict[str, dict[str, dict[str, float]]]] = agg.get("score_matrix") or {}
    sites = sorted({site for rows in matrix.values() for cells in rows.values() for site in cells})
    extra = {p for rows in matrix.values() for p in rows} - set(PRIMITIVE_ORDER)
    rows = [*PRIMITIVE_ORDER, *sorted(extra)]
    specific = specific_cells()
    tables: list[dict[str, Any]] = []
    for agent in agents:
        body: list[dict[str, Any]] = []
        for primitive in rows:
            cells: list[dict[str, Any] | None] = []
            for site in sites:
                cell = matrix.get(agent, {}).get(primitive, {}).get(site)
                if cell is None:
                    cells.append(None)
                    continue
                cells.append({"n": int(cell["n"]), "rate": cell["success_rate"], "score": cell["mean_score"],
                              "colour": rate_colour(cell["success_rate"]),
                              "unproven": primitive != "base" and (site, primitive) not in specific})
            body.append({"primitive": primitive, "cells": cells})
        tables.append({"agent": agent, "rows": body})
    diffs: list[dict[str, Any]] = []
    for other in tables[1:]:
        rows_d: list[dict[str, Any]] = []
        for mine, theirs in zip(tables[0]["rows"], other["rows"], strict=True):
            cells_d: list[dict[str, Any] | None] = []
            for a, b in zip(mine["cells"], theirs["cells"], strict=True):
                cells_d.append(None if a is None or b is None else
                               {"delta": a["rate"] - b["rate"], "a": a["rate"], "b": b["rate"],
                                "colour": delta_colour(a["rate"] - b["rate"])})
            rows_d.append({"primitive": mine["primitive"], "cells": cells_d})
        diffs.append({"a": tables[0]["agent"], "b": other["agent"], "rows": rows_d})
    any_unproven = any(cell and cell["unproven"] for t in tables for row in t["rows"] for cell in row["cells"])
    return {"sites": sites, "tables": tables, "diffs": diffs, "unproven_note": UNPROVEN_NOTE,
            "any_unproven": any_unproven}


def _drops(agg: dict[str, Any], agents: list[str], colours: dict[str, str]) -> dict[str, Any]:
    by_variant: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for d in agg.get("variant_drops") or []:
        by_variant[d["variant_id"]].append(d)
    values = [v for ds in by_variant.values() for d in ds for v in (d["drop"], *d["ci95"])]
    lo_end = -1.0 if any(v < 0 for v in values) else 0.0
    span = 1.0 - lo_end

    def pos(x: float) -> float:
        return round(100 * (min(1.0, max(lo_end, x)) - lo_end) / span, 2)

    groups = []
    for variant, ds in by_variant.items():
        ds.sort(key=lambda d: agents.index(d["agent"]) if d["agent"] in agents else len(agents))
        bars = []
        for d in ds:
            lo, hi = d["ci95"]
            left, right = sorted((pos(0.0), pos(d["drop"])))
            bars.append({
                "agent": d["agent"], "colour": colours.get(d["agent"], "#888"), "drop": d["drop"],
                "lo": lo, "hi": hi, "n_pairs": d["n_pairs"], "base_mean": d["base_mean"],
                "variant_mean": d["variant_mean"], "success_drop": d.get("success_drop"),
                "bar_left": left, "bar_width": round(right - left, 2),
                "ci_left": pos(lo), "ci_width": round(pos(hi) - pos(lo), 2), "negative": d["drop"] < 0,
            })
        groups.append({"variant": variant, "primitive": ds[0].get("target_primitive") or "?", "bars": bars,
                       "worst": max(d["drop"] for d in ds)})
    groups.sort(key=lambda g: (-g["worst"], -sum(b["drop"] for b in g["bars"]), g["variant"]))
    ticks = [{"label": f"{t:g}", "pos": pos(t)} for t in (lo_end, *(x / 4 for x in range(int(4 * lo_end) + 1, 5)))]
    return {"hurt": [g for g in groups if g["worst"] > 0], "unhurt": [g for g in groups if g["worst"] <= 0],
            "ticks": ticks, "zero": pos(0.0)}


def _attribution(agg: dict[str, Any], agents: list[str]) -> list[dict[str, Any]]:
    attribution: dict[str, dict[str, dict[str, int]]] = agg.get("failure_attribution") or {}
    tables = []
    for agent in agents:
        rows = attribution.get(agent) or {}
        tables.append({"agent": agent, "rows": [
            {"primitive": p, **rows[p], "rate": rows[p]["failures"] / rows[p]["episodes"] if rows[p]["episodes"]
             else None}
            for p in sorted(rows, key=_primitive_order)
        ]})
    return [t for t in tables if t["rows"]]


def _robustness(summary: RunSummary, agg: dict[str, Any], agents: list[str]) -> dict[str, Any] | None:
    """Per agent × chaos profile, paired with the clean base (`aggregates.profile_robustness`); None when
    the run laid no profile."""
    profiles = sorted({r.profile for r in summary.episodes if r.profile} |
                      set(summary.config.chaos_profiles if summary.config else []))
    rows: list[dict[str, Any]] = agg.get("profile_robustness") or []
    if not profiles and not rows:
        return None
    order = {a: i for i, a in enumerate(agents)}
    return {"profiles": profiles, "rows": [
        {**r, "firings": r.get("firings"),
         "robustness_colour": rate_colour(None if r["robustness"] is None else min(1.0, r["robustness"]))}
        for r in sorted(rows, key=lambda r: (order.get(r["agent"], len(order)), r["agent"], r["profile"]))
    ]}


def _pass_k(agg: dict[str, Any]) -> dict[str, Any]:
    rows = [r for r in agg.get("pass_k") or [] if r["n"] > 1]
    k_max = max((r["n"] for r in rows), default=0)
    return {"k": list(range(1, k_max + 1)), "rows": [
        {**r, "values": [r["pass_k"].get(str(k)) for k in range(1, k_max + 1)]} for r in rows
    ]}


# ---------------------------------------------------------------- episodes


def _ledger(path: Path) -> dict[str, Any]:
    out: dict[str, Any] = {"lines": [], "total": 0, "broken": 0, "present": path.is_file()}
    if not out["present"]:
        return out
    try:
        text = path.read_text(errors="replace")
    except OSError:
        out["present"] = False
        return out
    for raw in text.splitlines():
        if not raw.strip():
            continue
        out["total"] += 1
        if len(out["lines"]) >= LEDGER_LIMIT:
            continue
        try:
            line = json.loads(raw)
            if not isinstance(line, dict):
                raise ValueError("not an object")
        except ValueError:
            out["broken"] += 1
            continue
        request = line.get("request") if isinstance(line.get("request"), dict) else None
        detail = line.get("detail")
        detail_text = "" if detail in (None, {}, "") else json.dumps(detail, ensure_ascii=False,
                                                                      separators=(", ", ": "))
        if len(detail_text) > DETAIL_CHARS:
            detail_text = detail_text[:DETAIL_CHARS] + " …"
        out["lines"].append({
            "seq": line.get("seq", ""), "t_ms": line.get("t_ms"), "layer": str(line.get("layer", "?")),
            "type": str(line.get("type", "?")), "fault_id": line.get("fault_id") or "",
            "request": " ".join(str(request.get(k, "")) for k in ("method", "host", "path")).strip() if request
            else "",
            "detail": detail_text,
        })
    return out


def _files(folder: Path, rel: str) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    files: list[dict[str, str]] = []
    shots: list[dict[str, str]] = []
    try:
        present = {p.name: p for p in folder.iterdir()}
    except OSError:
        return files, shots
    names = [n for n in EPISODE_FILES if n in present]
    names += sorted(n for n, p in present.items() if n not in EPISODE_FILES and p.is_file()
                    and not n.endswith(".tmp"))
    for name in names:
        try:
            size = _size(present[name].stat().st_size)
        except OSError:
            size = ""
        files.append({"name": name, "href": f"{rel}/{_href(name)}", "size": size})
    shot_dir = present.get("screenshots")
    if shot_dir is not None and shot_dir.is_dir():
        try:
            images = sorted(p.name for p in shot_dir.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        except OSError:
            images = []
        shots = [{"name": n, "href": f"{rel}/screenshots/{_href(n)}"} for n in images]
    return files, shots


def _process(r: EpisodeResult) -> dict[str, Any] | None:
    process = r.verdict.process if r.verdict else None
    if process is None:
        return None
    facts: list[tuple[str, str]] = []

    def yes_no(v: bool | None) -> str:
        return "–" if v is None else "yes" if v else "no"

    facts.append(("exploration success", yes_no(process.exploration_success)))
    facts.append(("execution success", yes_no(process.execution_success)))
    if process.informational_coverage is not None:
        facts.append(("informational coverage", f"{100 * process.informational_coverage:.0f}%"))
    if process.gui_steps is not None:
        facts.append(("GUI steps", f"{process.gui_steps} (from {process.gui_steps_source or '?'})"))
    facts.append(("semantic steps", str(process.semantic_steps)))
    if process.gui_per_semantic is not None:
        facts.append(("GUI per semantic step", f"{process.gui_per_semantic:.2f}"))
    if process.steps_by_kind:
        facts.append(("steps by kind", ", ".join(f"{k} {v}" for k, v in sorted(process.steps_by_kind.items()))))
    if process.target_id:
        facts.append(("target", process.target_id))
    if process.inspected_before_commit:
        facts.append(("inspected before commit", ", ".join(process.inspected_before_commit)))
    facts.append(("premature commit", yes_no(process.premature_commit)))
    if process.missing_evidence:
        facts.append(("missing evidence", ", ".join(process.missing_evidence)))
    if process.relevant_missing:
        facts.append(("relevant attributes not seen", ", ".join(process.relevant_missing)))
    wrong = process.first_wrong_step
    return {
        "facts": facts,
        "first_wrong": None if wrong is None else {
            "where": f"{wrong.kind} {wrong.name}" + (f" → {wrong.target}" if wrong.target else "")
                     + (f" (event {wrong.seq})" if wrong.seq is not None else ""),
            "reason": wrong.reason},
        "recoveries": [rec.model_dump() for rec in process.recoveries],
    }


def _episode(r: EpisodeResult, run_dir: Path) -> dict[str, Any]:
    folder = run_dir / "episodes" / r.episode_id
    rel = _href("episodes", r.episode_id)
    present = folder.is_dir()
    files, shots = _files(folder, rel) if present else ([], [])
    verdict = r.verdict
    failed_checks = [c for c in ([*verdict.checks, *verdict.negative_checks] if verdict else []) if not c.passed]
    refs = {c.ref for c in failed_checks}
    # The answer's failure is shown with the answer itself.
    other_failures = [f for f in (verdict.failures if verdict else [])
                      if f.split(" ", 1)[0] not in refs and not f.startswith("answer (")]
    status = "infra error" if r.infra_failed else r.outcome.status
    log = r.outcome.log
    t = r.timings
    return {
        "id": r.episode_id, "anchor": "ep-" + r.episode_id, "task": r.task_id,
        "variant": r.variant_id or (f"base + {r.profile}" if r.profile else "base"),
        "is_base": not r.variant_id, "profile": r.profile,
        "primitive": r.target_primitive or ("base" if not r.variant_id else "?"),
        "site": r.site or "", "seed": r.seed, "agent": r.agent, "success": r.success, "score": r.score,
        "status": status, "firings": r.firings, "seconds": t.total_ms / 1000,
        "error": (r.infra.cause if r.infra else r.error) if r.infra_failed else None,
        "infra_process": r.infra.process if r.infra else None,
        "instruction": r.instruction, "outcome": r.outcome, "log": log[:LOG_LIMIT],
        "log_cut": max(0, len(log) - LOG_LIMIT),
        "timings": [("open", t.open_ms), ("agent", t.agent_ms), ("close", t.close_ms), ("grade", t.grade_ms)],
        "verdict": verdict, "failed_checks": failed_checks, "other_failures": other_failures,
        "passed_checks": (len(verdict.checks) + len(verdict.negative_checks) - len(failed_checks)) if verdict else 0,
        "process": _process(r), "ledger": _ledger(folder / "faults.jsonl") if present else None,
        "folder_present": present, "folder": f"episodes/{r.episode_id}/", "files": files, "shots": shots,
        "replay": f"{rel}/replay.html" if present and (folder / "replay.html").is_file() else None,
        "search": " ".join([r.task_id, r.variant_id or "base", r.profile or "", r.target_primitive or "base",
                            r.agent, status,
                            "pass" if r.success else "fail", f"seed {r.seed}"]).lower(),
    }


# ---------------------------------------------------------------- entry points


def render_report(summary: RunSummary, run_dir: Path) -> str:
    """The report page for a run; `run_dir` is where its episode folders are (links are relative to it)."""
    agg = summary.aggregates or run_aggregates(summary.episodes)
    agents = _agents(summary, agg)
    colours = {a: AGENT_COLOURS[i % len(AGENT_COLOURS)] for i, a in enumerate(agents)}
    episodes = [_episode(r, run_dir) for r in
                sorted(summary.episodes, key=lambda r: (r.task_id, r.variant_id or "", r.seed, r.agent,
                                                        r.episode_id))]
    context = {
        "run": summary, "started": _when(summary.started_at), "finished": _when(summary.finished_at),
        "duration": _duration(summary.started_at, summary.finished_at), "agents": agents, "colours": colours,
        "executor": executor_label(summary.config),
        "sites": sorted({r.site for r in summary.episodes if r.site}),
        "errors": sum(1 for r in summary.episodes if r.infra_failed),
        "cards": _cards(summary, agents, colours), "matrix": _matrix(agg, agents),
        "drops": _drops(agg, agents, colours), "attribution": _attribution(agg, agents),
        "robustness": _robustness(summary, agg, agents), "pass_k": _pass_k(agg), "episodes": episodes,
        "primitives": PRIMITIVE_ORDER[1:],
        "statuses": sorted({e["status"] for e in episodes}), "rate_colour": rate_colour,
    }
    return _environment().get_template("report.html.j2").render(context)


def write_report(summary: RunSummary, run_dir: Path) -> Path:
    """Render and write runs/<run-id>/report.html (via a temp file and rename); returns its path."""
    path = run_dir / REPORT_NAME
    text = render_report(summary, run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".html.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return path
