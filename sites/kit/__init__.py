"""The site kit: what every hermetic site is built on.

- `site`: `Site`, the declaration a site's `site.py` makes (profile, state type, world generator, routers,
  fault implementations);
- `app`: the app factory (sign-in via `auth`/`session`, error pages, static files);
- `templating`: the shared layout (`templates/kit/base.html`) and `Pages.render`;
  `static/kit.css` is the stylesheet each site themes, `static/kit.js` the shared script (`Kit.api`);
- `episode`, `store`: episodes (`SiteEpisode[State]`) and their seeded worlds (the clock is
  `scenarios.clock`, the seeded RNG `scenarios.seeding`); `deps`: the episode dependency
  (`EpisodeOf[State]`) and the `Episodes` protocol the apps read the store through;
  `lookup`: `get_or_404`;
- `events`: the typed event emitter (`episode.emit.<kind>`; the events are `scenarios.events`);
  `hooks`: the hook points of the seed and server faults; `ledger`, `oracle`, `hosting`: the plumbing.
"""
