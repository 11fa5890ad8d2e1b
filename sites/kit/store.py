"""All open episodes of the sites server: created from (site, task, seed, setup, faults)."""

from collections.abc import Iterator, Mapping
from typing import Any

from scenarios.clock import EpisodeClock
from scenarios.seeding import derive_seed, episode_rng
from sites.kit.episode import SiteEpisode
from sites.kit.hooks import arm_site_faults, run_seed_hooks
from sites.kit.site import Site, WorldSetup


class EpisodeStore:
    """The open episodes; the sites' apps see it through `sites.kit.deps.Episodes`."""

    def __init__(self, sites: Mapping[str, Site[Any]]) -> None:
        self.sites = dict(sites)
        self._episodes: dict[str, SiteEpisode] = {}
        self._counter = 0

    def create(
        self,
        site: str,
        task_id: str,
        seed: int,
        setup: WorldSetup,
        variant_id: str | None = None,
        episode_id: str | None = None,
        faults: list[dict[str, Any]] | None = None,
    ) -> SiteEpisode:
        """A new episode; `KeyError` for an unknown site, `ValueError` (`FaultError`) for bad faults."""
        if site not in self.sites:
            raise KeyError(f"unknown site {site!r}; known: {sorted(self.sites)}")
        if episode_id is None:
            self._counter += 1
            episode_id = f"ep{self._counter:05d}"
        if episode_id in self._episodes:
            raise ValueError(f"episode {episode_id!r} already exists")
        the_site = self.sites[site]
        injected = arm_site_faults(list(faults or []), seed, site, the_site.faults)
        clock = EpisodeClock(derive_seed(site, task_id, seed))
        world = the_site.generate(setup, episode_rng(site, task_id, seed), clock)
        if not isinstance(world.state, the_site.state_type):
            raise TypeError(f"site {site!r} generated a {type(world.state).__name__}, "
                            f"not its state type {the_site.state_type.__name__}")
        episode = SiteEpisode(
            id=episode_id, site=site, task_id=task_id, variant_id=variant_id, seed=seed,
            state=world.state, initial_state=b"", bindings=world.bindings, clock=clock,
            faults=list(faults or []), injected=injected, implementations=the_site.faults,
        )
        run_seed_hooks(episode, the_site.host, setup.params)
        episode.initial_state = episode.state_bytes()
        self._episodes[episode_id] = episode
        return episode

    def get(self, episode_id: str) -> SiteEpisode | None:
        return self._episodes.get(episode_id)

    def delete(self, episode_id: str) -> bool:
        episode = self._episodes.pop(episode_id, None)
        if episode is None:
            return False
        episode.feed.close()  # its waiting event readers get what is left, then 410
        return True

    def __iter__(self) -> Iterator[SiteEpisode]:
        return iter(list(self._episodes.values()))

    def __len__(self) -> int:
        return len(self._episodes)
