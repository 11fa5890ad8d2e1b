"""The site kit: what every hermetic site is built on.

- `site`: the `Site` base (profile, world generator, routers, fault implementations);
- `app`: the app factory (sign-in via `auth`/`session`, error pages, static files);
- `templating`: the shared layout (`templates/kit/base.html`) and `Pages.render`;
  `static/kit.css` is the stylesheet each site themes, `static/kit.js` the shared script (`Kit.api`);
- `episode`, `store`: episodes and their seeded worlds; `clock`: the episode clock (the seeded
  RNG is `scenarios.seeding`);
- `events`: the typed event emitter (`episode.emit.<kind>`); `hooks`: the hook points of the
  seed and server faults; `ledger`, `oracle`, `hosting`, `deps`: the plumbing.
"""
