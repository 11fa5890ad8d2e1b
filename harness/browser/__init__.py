"""Chromium for episodes: `pool.py` (one headless Chromium per run, a context per episode) and `cdp.py`
(a Chromium per episode for agents that attach by CDP)."""
