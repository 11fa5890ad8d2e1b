"""Many episodes as one run: `runner.py` (tasks × variants × seeds × agents in parallel), `results.py`
(result.json and run.json), `overlays.py` (chaos profiles and scripts laid over a run's plan)."""
