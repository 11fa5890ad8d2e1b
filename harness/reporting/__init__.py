"""What a run leaves to read: `table.py` (the result table printed at the end), `html.py`
(report.html) and `replay.py` (an episode's replay.html)."""
