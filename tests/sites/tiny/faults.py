"""Tick's one fault implementation: `decoy_items` (seed) adds open to-dos named one small edit away
from the target's, listed just before it. Only the fault's RNG is used: same seed, same bytes."""

from injectors.hookspec import Firing, SeedWorld
from sites.kit.lookup import find
from tests.sites.tiny.world import TinyState, Todo


def decoys(world: SeedWorld[TinyState], fault: Firing, names: list[str]) -> list[str]:
    todos = world.state.todos
    target = find(todos, world.bindings["target"]["id"])
    assert target is not None, "the generator binds an existing target"
    made = [Todo(id=f"t{len(todos) + i}", name=name, due=fault.rng.choice([t.due for t in todos]))
            for i, name in enumerate(names, start=1)]
    at = todos.index(target)
    todos[at:at] = made
    return [t.id for t in made]


FAULTS = {"decoy_items": decoys}
