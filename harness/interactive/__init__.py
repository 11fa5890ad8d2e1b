"""Sessions a person takes part in: `up.py` (`webchaos up`: one episode left open for your own agent)
and `play.py` (`webchaos play`: beat the agent in a local web page)."""
