"""webchaos: fault injection for evaluating web agents — the Python API.

    import webchaos

    async with webchaos.episode(task="shop_add_to_cart", variant="shop_cart_503_then_success", seed=1) as ep:
        ...  # drive ep.cdp_url (a Chromium on the episode's proxy) or use ep.proxy_url yourself
        result = await ep.grade()       # graded from the sites' server state
        assert result.success, result.verdict.failures

Share one `webchaos.Stack()` across many episodes (`stack.episode(...)`); see `harness.api`.
`webchaos.suite("core")` is a committed suite: `for task, variant, seed in suite.episodes(): ...`.
This package only re-exports: nothing inside webchaos's own packages imports it.
"""

from grader.answers import AnswerCheck
from grader.verdict import Verdict
from harness.agents.base import AgentOutcome
from harness.agents.usage import Usage
from harness.api import Episode, FaultControlError, Stack, StackThread, WebchaosError, episode
from harness.run.results import EpisodeResult
from scenarios.answers import Answer
from scenarios.suites import Suite
from scenarios.suites import load_suite as suite

__all__ = ["AgentOutcome", "Answer", "AnswerCheck", "Episode", "EpisodeResult", "FaultControlError", "Stack",
           "StackThread", "Suite", "Usage", "Verdict", "WebchaosError", "episode", "suite"]
