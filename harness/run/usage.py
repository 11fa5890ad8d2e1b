"""Per-agent usage over a run (run.json `aggregates.usage`, the terminal summary, report.html's cards).

Only what agents reported is added up: an episode without usage is counted as not reported, never as
zero tokens or zero dollars, and a total nobody reported is None ("not reported"). Episodes webchaos
could not run (infrastructure errors) are left out, as from every other aggregate.
"""

from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel, Field

from harness.agents.usage import Usage
from harness.run.results import EpisodeResult, RunSummary


class UsageSum(BaseModel):
    """One usage field over the episodes that reported it."""

    total: int | float
    episodes: int = Field(description="episodes that reported this field")
    mean: int | float = Field(description="per episode that reported it")


class AgentUsage(BaseModel):
    episodes: int = Field(description="graded episodes of the agent")
    reported: int = Field(description="of them, those that reported any usage")
    input_tokens: UsageSum | None = None
    output_tokens: UsageSum | None = None
    cost_usd: UsageSum | None = None
    cost_per_success: float | None = Field(
        default=None, description="total cost / successes, over the episodes that reported a cost "
        "(None: no cost reported, or no success among them)")
    successes_with_cost: int = Field(default=0, description="successes among the episodes that reported a cost")
    models: list[str] = Field(default_factory=list, description="the models reported, first seen first")

    @property
    def any_reported(self) -> bool:
        return self.reported > 0


def _sum(values: Sequence[float]) -> UsageSum | None:
    if not values:
        return None
    total = sum(values)
    return UsageSum(total=round(total, 6), episodes=len(values), mean=round(total / len(values), 6))


def agent_usage(results: Sequence[EpisodeResult]) -> AgentUsage:
    """One agent's episodes added up (infrastructure errors left out)."""
    graded = [r for r in results if not r.infra_failed]
    reports: list[tuple[EpisodeResult, Usage]] = [(r, r.outcome.usage) for r in graded
                                                  if r.outcome.usage is not None and r.outcome.usage.reported]
    costed = [(r, u.cost_usd) for r, u in reports if u.cost_usd is not None]
    successes = sum(1 for r, _ in costed if r.success)
    cost = _sum([c for _, c in costed])
    models = [name.strip() for _, u in reports if u.model for name in u.model.split(",") if name.strip()]
    return AgentUsage(
        episodes=len(graded), reported=len(reports),
        input_tokens=_sum([u.input_tokens for _, u in reports if u.input_tokens is not None]),
        output_tokens=_sum([u.output_tokens for _, u in reports if u.output_tokens is not None]),
        cost_usd=cost,
        cost_per_success=round(cost.total / successes, 6) if cost is not None and successes else None,
        successes_with_cost=successes, models=list(dict.fromkeys(models)),
    )


def usage_by_agent(results: Iterable[EpisodeResult]) -> dict[str, AgentUsage]:
    """Every agent of the run (sorted by name), with what its episodes reported."""
    by_agent: dict[str, list[EpisodeResult]] = {}
    for r in results:
        by_agent.setdefault(r.agent, []).append(r)
    return {agent: agent_usage(rs) for agent, rs in sorted(by_agent.items())}


def usage_aggregate(results: Iterable[EpisodeResult]) -> dict[str, Any]:
    """`aggregates.usage` in run.json: {agent: AgentUsage as JSON}."""
    return {agent: usage.model_dump() for agent, usage in usage_by_agent(results).items()}


def reported_usage(summary: RunSummary) -> dict[str, AgentUsage] | None:
    """What the views show: run.json's `aggregates.usage` (added up once, when the run ended; from the
    episodes for a run.json written before it had one); None when no agent reported any usage."""
    stored = (summary.aggregates or {}).get("usage")
    usage = ({agent: AgentUsage.model_validate(u) for agent, u in stored.items()} if stored is not None
             else usage_by_agent(summary.episodes))
    return usage if any(u.any_reported for u in usage.values()) else None


NOT_REPORTED = "not reported"


def tokens_shown(total: UsageSum | None) -> str:
    """A token count per episode, short: 950, 12.3k, 1.20M; "not reported" when nobody reported it."""
    if total is None:
        return NOT_REPORTED
    n = total.mean
    return f"{n / 1e6:.2f}M" if n >= 1e6 else f"{n / 1e3:.1f}k" if n >= 1e4 else f"{n:,.0f}"


def dollars_shown(amount: float | None) -> str:
    """Dollars, with the digits a small amount needs; "not reported" for None."""
    if amount is None:
        return NOT_REPORTED
    if amount >= 10:
        return f"${amount:,.2f}"
    return f"${amount:.4f}" if amount >= 0.0001 or amount == 0 else f"${amount:.2e}"


def tokens_in_out_shown(usage: AgentUsage) -> str:
    """Tokens in / out per episode that reported them: "12.3k / 950"; "not reported" when neither was."""
    if usage.input_tokens is None and usage.output_tokens is None:
        return NOT_REPORTED
    return f"{tokens_shown(usage.input_tokens)} / {tokens_shown(usage.output_tokens)}"


def cost_per_success_shown(usage: AgentUsage) -> str:
    if usage.cost_usd is not None and usage.cost_per_success is None:
        return "no success"
    return dollars_shown(usage.cost_per_success)
