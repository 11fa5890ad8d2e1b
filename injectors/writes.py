"""Write family (server): writes that fail, half-succeed, or are refused once."""

from typing import Any, ClassVar, Protocol

from pydantic import Field

from injectors.hookspec import Firing, Reply, ServerCall, ServerFault, When
from scenarios.faults import Primitive, register


class PartialWriteSite(Protocol):
    points: frozenset[str]

    def drop(self, call: ServerCall, fault: Firing) -> dict[str, Any]:
        """After the write, put one written field back as it was; say which (entity, field, asked, stored)."""
        ...

_GENERIC = "Something went wrong on our side. Please try again."


@register
class WriteFailsAfterCommit(ServerFault):
    name: ClassVar[str] = "write_fails_after_commit"
    primitive: ClassVar[Primitive] = Primitive.verification
    description: ClassVar[str] = (
        "A successful write is kept but answered with an error: retrying without checking duplicates it."
    )
    kinds: ClassVar[frozenset[str]] = frozenset({"write"})
    when: ClassVar[When] = "after"

    status: int = Field(default=500, ge=500, le=599, description="status of the error answer")
    message: str = Field(default=_GENERIC, max_length=300)

    def eligible(self, call: ServerCall, fault: Firing) -> bool:
        return call.reply is not None and call.reply.ok

    def after(self, call: ServerCall, fault: Firing, reply: Reply) -> Reply:
        fault.detail.update(status=self.status, committed=True)
        return Reply.error(self.status, self.message)


@register
class WriteFailsBeforeCommit(ServerFault):
    name: ClassVar[str] = "write_fails_before_commit"
    primitive: ClassVar[Primitive] = Primitive.patience
    description: ClassVar[str] = "A write is refused with an error before anything is stored; retrying works."
    kinds: ClassVar[frozenset[str]] = frozenset({"write"})
    when: ClassVar[When] = "before"

    status: int = Field(default=500, ge=500, le=599, description="status of the error answer")
    message: str = Field(default=_GENERIC, max_length=300)

    def before(self, call: ServerCall, fault: Firing) -> Reply:
        fault.detail.update(status=self.status, committed=False)
        return Reply.error(self.status, self.message)


@register
class PartialWrite(ServerFault):
    name: ClassVar[str] = "partial_write"
    site_protocol: ClassVar[type | None] = PartialWriteSite
    primitive: ClassVar[Primitive] = Primitive.verification
    description: ClassVar[str] = (
        "A write succeeds and answers success, but one field is silently not stored (the site "
        "says which field of each write, e.g. a quantity or a make-default flag)."
    )
    kinds: ClassVar[frozenset[str]] = frozenset({"write"})
    when: ClassVar[When] = "after"

    def eligible(self, call: ServerCall, fault: Firing) -> bool:
        spec = self.site_impl(call.implementations)
        return call.reply is not None and call.reply.ok and call.point in spec.points

    def after(self, call: ServerCall, fault: Firing, reply: Reply) -> Reply:
        dropped = self.site_impl(call.implementations).drop(call, fault)
        fault.detail.update(dropped)
        return reply


@register
class ValidationRejectOnce(ServerFault):
    name: ClassVar[str] = "validation_reject_once"
    primitive: ClassVar[Primitive] = Primitive.verification
    description: ClassVar[str] = (
        "A valid write is refused once with a validation error (nothing stored); submitting again works. "
        "Fires once per fault unless the schedule says otherwise."
    )
    kinds: ClassVar[frozenset[str]] = frozenset({"write"})
    when: ClassVar[When] = "before"

    status: int = Field(default=422, ge=400, le=499, description="status of the refusal")
    message: str = Field(default="Some details could not be verified. Please check them and submit again.",
                         max_length=300)

    def eligible(self, call: ServerCall, fault: Firing) -> bool:
        return fault.armed.fired == 0 or fault.armed.spec.schedule.mode != "always"

    def before(self, call: ServerCall, fault: Firing) -> Reply:
        fault.detail.update(status=self.status, committed=False)
        return Reply.error(self.status, self.message)
