"""One episode, from open to grade: `manager.py` (open → run agent → close → grade → the episode
folder), `control.py` (run-time arming and progress of an open episode), `script.py` (scenario scripts)."""
