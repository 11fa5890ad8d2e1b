"""The recorder's tail (stack.py puts it last in the chain): a flow that is answered or has failed is done
changing, so the recorder keeps its bounded HAR entry instead of the flow (recorder.py)."""

from __future__ import annotations

from collections.abc import Callable

from mitmproxy import http


class RecorderTail:
    def __init__(self, finish: Callable[[http.HTTPFlow], None]) -> None:
        self.finish = finish

    def response(self, flow: http.HTTPFlow) -> None:
        self.finish(flow)

    def error(self, flow: http.HTTPFlow) -> None:
        self.finish(flow)
