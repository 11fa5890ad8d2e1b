"""A `cmd:` agent for the crash tests: examples/http_agent.py, with a pause a test can kill into.

It writes `<pid> <proxy URL>` to $WEBCHAOS_OUT_DIR/agent.pid, waits LINGER_S seconds (default
1.5) with its episode open, then adds the product to the cart as the example agent does."""

import os
import runpy
import sys
import time
from pathlib import Path

out = Path(os.environ["WEBCHAOS_OUT_DIR"])
(out / "agent.pid.tmp").write_text(f"{os.getpid()} {os.environ['WEBCHAOS_PROXY']}\n")
os.replace(out / "agent.pid.tmp", out / "agent.pid")
time.sleep(float(os.environ.get("LINGER_S", "1.5")))
example = Path(__file__).resolve().parents[2] / "examples" / "http_agent.py"
sys.exit(runpy.run_path(str(example))["main"]())
