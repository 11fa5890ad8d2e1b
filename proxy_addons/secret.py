"""The stack's secret inside the proxy (see scenarios/secret.py).

`webchaos_secret_fd` names an inherited file descriptor (the harness passes the read end of
a pipe; by hand, `3<secret-file`); it is read once, at start, and closed. The control API
requires the secret from its callers, and the router adds it to every request it forwards
to the sites server; `strip` takes it off a flow again so no HAR or hook after the
upstream call ever sees it.
"""

from __future__ import annotations

from mitmproxy import ctx, exceptions, http
from mitmproxy.addonmanager import Loader

from scenarios.secret import SECRET_HEADER, SecretError, forbid_dumps, read_secret_fd


class StackSecret:
    """First addon of the stack: holds the secret for the router and the control API."""

    def __init__(self) -> None:
        self.value: str | None = None

    def load(self, loader: Loader) -> None:
        loader.add_option(
            "webchaos_secret_fd", int, -1,
            "Inherited file descriptor holding the stack's secret (read once at start, then closed); "
            "required with webchaos_control_port.",
        )

    def configure(self, updated: set[str]) -> None:
        if "webchaos_secret_fd" not in updated or ctx.options.webchaos_secret_fd < 0:
            return
        if self.value is not None:
            raise exceptions.OptionsError("webchaos_secret_fd: the secret is read once, at start")
        try:
            self.value = read_secret_fd(ctx.options.webchaos_secret_fd)
        except SecretError as exc:
            raise exceptions.OptionsError(f"webchaos_secret_fd: {exc}") from exc
        forbid_dumps()


def strip(flow: http.HTTPFlow) -> None:
    """Take the secret off a flow's request (answered or failed: it has been sent already)."""
    if SECRET_HEADER in flow.request.headers:
        del flow.request.headers[SECRET_HEADER]
