"""An answer task through Inspect AI: mockllm plays a scripted model that compares a product's offers with the
browser tools and ends with `submit(answer=...)`; the webchaos scorer grades the answer against the world's truth
(right: the cheapest seller; wrong: the dearest, named in the verdict beside the expected one)."""

import re
from pathlib import Path
from typing import Any

import pytest

inspect_ai = pytest.importorskip("inspect_ai")

from inspect_ai import eval_async  # noqa: E402
from inspect_ai.model import ChatMessage, ChatMessageUser, ModelOutput, get_model  # noqa: E402

from .mockllm import ref, search_step, tool_call, tool_history  # noqa: E402

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]


def scripted(pick: str) -> Any:
    """A model that searches the product, opens All offers, reads the rows and submits a seller's name:
    the row marked "Lowest price" (`pick="cheapest"`) or the last row, the dearest (`pick="dearest"`)."""

    def model(messages: list[ChatMessage], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        user = " ".join(next(m for m in messages if isinstance(m, ChatMessageUser)).text.split())
        product = re.search(r"sell the (.+?)\. Which seller", user).group(1)  # type: ignore[union-attr]
        if (opening := search_step(messages, product)) is not None:
            return opening
        calls, seen = tool_history(messages)
        clicks = calls.count("browser_click")
        if clicks == 0:
            return tool_call("browser_click", ref=ref(seen, "link", re.escape(product)))
        if clicks == 1:
            return tool_call("browser_click", ref=ref(seen, "link", r"Compare all \d+ offers"))
        # each offer: its row header (the seller), then the price cell ("$69.99 Lowest price" on the cheapest)
        rows = re.findall(r'- rowheader "([^"]+)"[^\n]*\n(?:[^\n]*\n){2}\s*- cell "(\$[\d,]+\.\d\d[^"]*)"', seen)
        if not rows:
            return tool_call("submit", answer="")
        seller = next(s for s, rest in rows if "Lowest price" in rest) if pick == "cheapest" else rows[-1][0]
        return tool_call("submit", answer=seller)

    return model


@pytest.mark.parametrize("pick", ["cheapest", "dearest"])
async def test_an_answer_submitted_through_inspect_is_graded_against_the_world(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pick: str) -> None:
    monkeypatch.setenv("INSPECT_DISPLAY", "none")
    monkeypatch.setenv("WEBCHAOS_RUNS_DIR", str(tmp_path / "runs"))
    logs = await eval_async(
        "webchaos/shop", task_args={"tasks": "shop_cheapest_seller", "variants": "none", "seeds": "1"},
        model=get_model("mockllm/model", custom_outputs=scripted(pick)), log_dir=str(tmp_path / "logs"))
    (log,) = logs
    assert log.status == "success", log.error
    (sample,) = log.samples or []
    (score,) = sample.scores.values()  # type: ignore[union-attr]
    meta = score.metadata or {}
    answer = meta["answer"]
    assert answer is not None and answer["predicate"] == "eq"
    if pick == "cheapest":
        assert score.value == 1.0 and meta["success"] is True, (score.explanation, sample.messages[-3:])
        assert answer["passed"] is True
    else:
        assert meta["success"] is False and answer["passed"] is False
        assert answer["given"] != answer["expected"] and answer["given"] in score.explanation
        assert answer["expected"] in score.explanation
