"""Session family (server): `session_expiry` — the user is signed out after n actions.

While the episode's session is expired every page redirects (303) to the site's sign-in page
(`/login?next=<path>&expired=1`) and every JSON call answers 401; signing in again
(`POST /login`) restores it. The gate itself belongs to the sites (`sites.kit.hooks`); this
fault only decides when the session expires.
"""

from typing import ClassVar

from pydantic import Field

from injectors.hookspec import Firing, Reply, ServerCall, ServerFault, When
from scenarios.faults import Primitive, register


@register
class SessionExpiry(ServerFault):
    name: ClassVar[str] = "session_expiry"
    # State tracking, as the reference agent's "sign in again" move: the agent must remember where it was
    # and what it had entered, and carry on from there (issue 29's specificity matrix showed it: the agent
    # lacking state tracking failed these variants, the one lacking backtracking did not).
    primitive: ClassVar[Primitive] = Primitive.state_tracking
    description: ClassVar[str] = (
        "Sign the user out (use schedule after_n for 'after n actions'): pages redirect to the sign-in "
        "page and JSON calls answer 401 until the agent signs in again; at most max_times per episode."
    )
    kinds: ClassVar[frozenset[str]] = frozenset({"page", "read", "write", "login"})
    when: ClassVar[When] = "before"

    max_times: int = Field(default=1, ge=1, le=20, description="how many times the session may expire")

    def observe(self, call: ServerCall, fault: Firing) -> None:
        if call.kind == "login" and call.method == "POST" and fault.memo.get("expired"):
            fault.memo["expired"] = False
            fault.memo["sign_ins"] = fault.memo.get("sign_ins", 0) + 1
            fault.note(event="signed_in", sign_ins=fault.memo["sign_ins"])

    def eligible(self, call: ServerCall, fault: Firing) -> bool:
        return (call.kind != "login" and call.episode.signed_in
                and fault.memo.get("times", 0) < self.max_times)

    def before(self, call: ServerCall, fault: Firing) -> Reply:
        fault.memo["times"] = fault.memo.get("times", 0) + 1
        fault.memo["expired"] = True
        call.episode.signed_in = False
        fault.detail.update(event="expired", times=fault.memo["times"])
        return call.episode.login_required(call)
