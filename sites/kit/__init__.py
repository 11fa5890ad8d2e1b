"""The site kit: what every hermetic site is built on.

- `site`: `Site`, the declaration a site's `site.py` makes (profile, state type, world generator, routers,
  fault implementations);
- `app`: the app factory (sign-in via `auth`/`session`, error pages, static files);
- `templating`: the shared layout (`templates/kit/base.html`) and `Pages.render`;
  `static/kit.css` is the stylesheet each site themes, `static/kit.js` the shared script (`Kit.api`);
- `episode`, `store`: episodes (`SiteEpisode[State]`) and their seeded worlds (the clock is
  `scenarios.clock`, the seeded RNG `scenarios.seeding`); `deps`: the episode dependency
  (`EpisodeOf[State]`) and the `Episodes` protocol the apps read the store through;
  `lookup`: `find` and `get_or_404`; `ids`: `TakesIds` (a state's `take_id`);
- `bodies`: what JSON write bodies share (`RequestBody`, `text`, `no_markup`, `Id`, `Day`); `dates`: every day
  and time of day a site prints, in fixed English words; `paging`: `page_number` and `Listing`; `urls`:
  `same_page_url`; `notices`: `notice_of` (the one-shot notice after a write); `templates/kit/_macros.html`:
  `notice_region`, `alert_region` (the box kit.js fills), `notice_and_alert`;
- `events`: the typed event emitter (`episode.emit.<kind>`; the events are `scenarios.events`);
  `hooks`: the hook points of the seed and server faults; `ledger`, `oracle`, `hosting`: the plumbing.
"""
