"""Shared machinery of every hermetic site: episodes, seeded RNG, clock, events, oracle.

Import from the submodules (`scenarios.seeding`, `sites.kit.episode`, …); this
package keeps its import light because the proxy process needs only the RNG.
"""
