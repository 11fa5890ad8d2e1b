"""Inspect's own model usage reaches the episode's result without the agent doing anything: mockllm plays the
scripted answering model (tests/webchaos/test_inspect_answers.py), one token in and out per call and a price per
call, and result.json, the score's metadata and Inspect's log agree on the totals."""

import json
from pathlib import Path
from typing import Any

import pytest

inspect_ai = pytest.importorskip("inspect_ai")

from inspect_ai import eval_async  # noqa: E402
from inspect_ai.model import ModelOutput, get_model  # noqa: E402

from tests.webchaos.test_inspect_answers import scripted  # noqa: E402

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]

PER_CALL_USD = 0.0005


def priced(pick: str) -> Any:
    """The scripted model, each call priced as a provider's usage would be."""
    model = scripted(pick)

    def call(*args: Any) -> ModelOutput:
        output: ModelOutput = model(*args)
        assert output.usage is not None
        output.usage.total_cost = PER_CALL_USD
        return output

    return call


async def test_the_samples_model_usage_is_the_episodes_usage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INSPECT_DISPLAY", "none")
    monkeypatch.setenv("WEBCHAOS_RUNS_DIR", str(tmp_path / "runs"))
    logs = await eval_async(
        "webchaos/shop", task_args={"tasks": "shop_cheapest_seller", "variants": "none", "seeds": "1"},
        model=get_model("mockllm/model", custom_outputs=priced("cheapest")), log_dir=str(tmp_path / "logs"))
    (log,) = logs
    assert log.status == "success", log.error
    (sample,) = log.samples or []
    (score,) = sample.scores.values()  # type: ignore[union-attr]
    meta = score.metadata or {}
    assert meta["success"] is True, score.explanation
    recorded = sample.model_usage["mockllm/model"]
    calls = sum(1 for m in sample.messages if m.role == "assistant")
    assert calls >= 6 and recorded.input_tokens == recorded.output_tokens == calls
    assert recorded.total_cost == pytest.approx(calls * PER_CALL_USD)
    stored = json.loads((Path(meta["episode_dir"]) / "result.json").read_text())["outcome"]["usage"]
    assert stored["input_tokens"] == stored["output_tokens"] == calls
    assert stored["cost_usd"] == pytest.approx(calls * PER_CALL_USD) and stored["model"] == "mockllm/model"
    assert meta["usage"] == stored
