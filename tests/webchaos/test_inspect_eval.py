"""webchaos as an Inspect AI task, end to end: Inspect's mockllm plays a scripted model whose tool
calls go through the browser tools, the episode's Chromium and the proxy; the webchaos grader scores."""

import re
from pathlib import Path
from typing import Any

import pytest

inspect_ai = pytest.importorskip("inspect_ai")

from inspect_ai import eval_async  # noqa: E402
from inspect_ai.model import (  # noqa: E402
    ChatMessage,
    ChatMessageTool,
    ChatMessageUser,
    ModelOutput,
    get_model,
)

from .mockllm import ref, search_step, tool_call, tool_history  # noqa: E402

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]


def scripted_model(messages: list[ChatMessage], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
    """A stand-in for an LLM that reads the last observation and picks refs from it, as a model would:
    search, open the product, Add to cart, and click again once if the shop reports an error."""
    user = next(m for m in messages if isinstance(m, ChatMessageUser)).text
    product = re.search(r"Add one (.+?) to your shopping cart", user).group(1)  # type: ignore[union-attr]
    if (opening := search_step(messages, product)) is not None:
        return opening
    calls, seen = tool_history(messages)
    clicks = calls.count("browser_click")
    if clicks == 0:
        return tool_call("browser_click", ref=ref(seen, "link", re.escape(product)))
    if clicks == 1 or (clicks == 2 and "Could not add" in seen):
        return tool_call("browser_click", ref=ref(seen, "button", "Add to cart"))
    if "Added to cart" not in seen and "browser_scroll" not in calls:
        # the shop says how the add went once its answer arrives: wait for that, however long a loaded
        # machine takes (counting looks instead made this test fail under load)
        if calls[-1] != "browser_wait":
            return tool_call("browser_wait", texts=["Added to cart", "Could not add"], seconds=30)
        return tool_call("submit", answer="gave up")
    # Then check where the write shows, as a careful model would, with the other tools.
    if "browser_scroll" not in calls:
        return tool_call("browser_scroll", direction="down")
    if "browser_goto" not in calls:
        return tool_call("browser_goto", url="/cart")
    if "browser_switch_tab" not in calls:
        return tool_call("browser_switch_tab", index=0)
    in_cart = ref(seen, "link", re.escape(product)) is not None and "/cart" in seen
    return tool_call("submit", answer="Added to cart" if in_cart else "not in the cart")


async def test_inspect_eval_of_a_base_task_and_a_variant_through_the_proxy(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INSPECT_DISPLAY", "none")
    monkeypatch.setenv("WEBCHAOS_RUNS_DIR", str(tmp_path / "runs"))
    logs = await eval_async(
        "webchaos/shop",  # found through Inspect's entry point
        task_args={"tasks": "shop_add_to_cart", "variants": "shop_cart_503_then_success", "seeds": "2"},
        model=get_model("mockllm/model", custom_outputs=scripted_model),
        log_dir=str(tmp_path / "logs"), max_samples=2,
    )
    (log,) = logs
    assert log.status == "success", log.error
    assert log.samples is not None
    by_id = {str(s.id): s for s in log.samples}
    assert set(by_id) == {"shop_add_to_cart/base/s2", "shop_add_to_cart/shop_cart_503_then_success/s2"}
    for sample in by_id.values():
        (score,) = sample.scores.values()  # type: ignore[union-attr]
        meta = score.metadata or {}
        assert score.value == 1.0 and meta["success"] is True, (score.explanation, sample.messages[-3:])
        assert meta["subgoals"]["target in cart"] is True and meta["failures"] == []
        episode = Path(meta["episode_dir"])
        assert (episode / "result.json").is_file()
    base = by_id["shop_add_to_cart/base/s2"].scores["webchaos_scorer"].metadata  # type: ignore[index,union-attr]
    variant = by_id["shop_add_to_cart/shop_cart_503_then_success/s2"]
    meta = variant.scores["webchaos_scorer"].metadata  # type: ignore[index,union-attr]
    assert base["firings"] == 0 and meta["firings"] == 1
    # The model saw the fault (the shop's error after the first click) and clicked again.
    tool_calls = [m.function for m in variant.messages if isinstance(m, ChatMessageTool)]
    assert tool_calls.count("browser_click") == 3
    assert tool_calls[-3:] == ["browser_scroll", "browser_goto", "browser_switch_tab"]
    assert variant.output.completion.endswith("Added to cart"), variant.output.completion  # the cart showed it
    ledger = (Path(meta["episode_dir"]) / "faults.jsonl").read_text()
    assert '"type":"error_then_success"' in ledger
