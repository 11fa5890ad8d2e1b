"""Tick's state and its seeded generator: the world comes from the seed's RNG and the episode clock only."""

from random import Random

from pydantic import BaseModel

from scenarios.clock import EpisodeClock
from sites.kit.accounts import email_address
from sites.kit.deps import EpisodeOf
from sites.kit.site import World, WorldSetup

CHORES = ["Water the plants", "Pay the phone bill", "Book a dentist visit", "Return library books",
          "Call the plumber", "Renew the car insurance", "Buy birthday card", "Defrost the freezer"]


class Todo(BaseModel):
    id: str
    name: str
    due: str
    done: bool = False
    done_at: str | None = None


class TinyState(BaseModel):
    owner: str
    email: str
    todos: list[Todo]


TinyEpisode = EpisodeOf[TinyState]


def generate(setup: WorldSetup, rng: Random, clock: EpisodeClock) -> World:
    setup.refuse_unknown("tiny", [])
    first, last = rng.choice(["Ana", "Ben", "Chloé"]), rng.choice(["Okafor", "Lind", "Moreau"])
    todos = [Todo(id=f"t{i}", name=name, due=clock.ago(days=-rng.randint(1, 9))[:10])
             for i, name in enumerate(rng.sample(CHORES, 5), start=1)]
    target = rng.choice(todos)
    state = TinyState(owner=f"{first} {last}", email=email_address(first, last), todos=todos)
    return World(state=state, bindings={"target": {"id": target.id, "name": target.name}})
