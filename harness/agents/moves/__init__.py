"""Moves past what the open web puts in an agent's way: human checks, bot walls, controls in frames or
closed shadow roots, dark patterns, pop-ups.

A move is one generic thing a careful person does; like the recoveries in `recovery.py` it never knows
which fault is armed, only what the page shows. Each module in this package registers its moves with
`move(...)` and is found by discovery, so a new module changes no other file. Each move names the fault
types whose obstacle it answers (`answers`, as `layer:type`): validation's digest of the reference agent
leaves out modules none of whose types a run uses, so a new move leaves other variants' evidence current.
A move's trigger must therefore be narrow: it acts only on what those fault types put on a page.

Two moments:
- `blocked`: a step failed (in `recovery.recover`, before the generic moves); the move clears the
  obstacle or acts itself and returns what it did, or None when its obstacle is not there.
- `before_act`: before every action of a step (the reference agent's `_step`); for obstacles that do not
  fail the step but spoil it (an offer ticked by default): the move undoes them and says so, or None.
"""

import importlib
import pkgutil
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from playwright.async_api import Page

from scenarios.faults import Primitive
from scenarios.profile import Affordances
from scenarios.schema import PlanStep

Moment = Literal["blocked", "before_act"]


@dataclass(frozen=True)
class MoveContext:
    """What a move may know: the site's words, the task's instruction and plan (what the user asked for)."""

    words: Affordances = field(default_factory=Affordances)
    instruction: str = ""
    plan: tuple[PlanStep, ...] = ()


@dataclass(frozen=True)
class Moved:
    said: str                 # what was done, for the agent's log
    acted: bool = False       # the move did the step's action itself (inside a frame, ...): check its effect next


Attempt = Callable[[Page, PlanStep, MoveContext], Awaitable[Moved | None]]


@dataclass(frozen=True)
class Move:
    name: str                     # as in recovery.RECOVERIES
    primitive: Primitive
    moment: Moment
    answers: frozenset[str]       # `layer:type` of the fault types whose obstacle it clears
    attempt: Attempt
    module: str                   # the module that registered it (validation's digest)
    # `blocked` also when the step's failure is a claimed success the check found missing: an obstacle the click
    # opened (a human check) explains a false claim too. False for a move that redoes the step's form: after a
    # claim, that is the check's own move (recovery.recover), files with it.
    on_a_claim: bool = True


MOVES: list[Move] = []


def move(name: str, primitive: Primitive, moment: Moment, answers: set[str], *,
         on_a_claim: bool = True) -> Callable[[Attempt], Attempt]:
    """Register the decorated coroutine as a move."""
    def register(attempt: Attempt) -> Attempt:
        if any(m.name == name for m in MOVES):
            raise ValueError(f"two moves are named {name!r}")
        MOVES.append(Move(name, primitive, moment, frozenset(answers), attempt, attempt.__module__, on_a_claim))
        return attempt
    return register


def moves_at(moment: Moment) -> list[Move]:
    return [m for m in MOVES if m.moment == moment]


async def before_acting(page: Page, step: PlanStep, context: MoveContext, may: Callable[[str], bool]) -> list[str]:
    """Run every `before_act` move the agent makes; what they did."""
    said = []
    for before in moves_at("before_act"):
        if may(before.name) and (moved := await before.attempt(page, step, context)) is not None:
            said.append(moved.said)
    return said


def move_files() -> dict[Path, frozenset[str]]:
    """Each move module's file with the fault types its moves answer (for validation's digest)."""
    out: dict[Path, set[str]] = {}
    for m in MOVES:
        module = importlib.import_module(m.module)
        assert module.__file__ is not None
        out.setdefault(Path(module.__file__).resolve(), set()).update(m.answers)
    return {file: frozenset(keys) for file, keys in out.items()}


for _found in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    importlib.import_module(f"{__name__}.{_found.name}")

__all__ = ["MOVES", "Move", "MoveContext", "Moved", "before_acting", "move", "move_files", "moves_at"]
