"""The `webchaos` command line: `main.py` (the app and its run, script, demo, list, faults, grade, report,
replay, play and up commands), `catalog.py` (catalog, catalog check, validate), `common.py` (the one
error path, the console, options shared by several commands)."""
