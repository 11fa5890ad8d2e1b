"""What the browser costs: the same episodes in Debian's `chromium --headless=new` and in its
`chromium-headless-shell` (what headless runs use when it is installed: harness/config.py).

Both run the same sample (reference agent, seed 1, K at once) on one stack, in rounds, the browsers taking
turns, so a change in the shared machine's load falls on both. CPU is read from /proc for every process
below this one (the stack, Playwright's driver, the browser's processes), sampled every 250 ms, each
process at its last reading. Printed per episode, as ratios to `chromium` measured in the same run, with the
rest beside them: the CPU that is not the browser's processes' (the stack, Playwright's driver, the harness;
the driver's share falls with the browser's, as it relays fewer DevTools messages).

    .venv/bin/python benchmarks/browser_cost.py [--episodes 12] [--rounds 2] [-k 2]

With `--flag F` (repeatable) it compares instead the headless shell as headless runs launch it and the same
with the flags F added (e.g. `--flag=--in-process-gpu`), the ratios then against the shell as launched.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import threading
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))
from throughput import sample, timed_run

from harness.browser import pool
from harness.services.processes import Services
from sites.registry import load_site_catalog

TICK = os.sysconf("SC_CLK_TCK")


class TreeCpu:
    """CPU seconds of every process below `root`, by whether its command line names `browser`."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.last: dict[int, tuple[float, str]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def _descendants(self) -> dict[int, tuple[float, str]]:
        parents: dict[int, int] = {}
        info: dict[int, tuple[float, str]] = {}
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                stat = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()
                cmd = Path(f"/proc/{name}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            parents[int(name)] = int(stat[1])
            info[int(name)] = ((int(stat[11]) + int(stat[12])) / TICK, cmd)
        below = {self.root}
        grew = True
        while grew:
            grew = False
            for pid, parent in parents.items():
                if parent in below and pid not in below:
                    below.add(pid)
                    grew = True
        return {pid: info[pid] for pid in below if pid in info and pid != self.root}

    def _poll(self) -> None:
        while not self._stop.is_set():
            self.last.update(self._descendants())
            self._stop.wait(0.25)

    def __enter__(self) -> TreeCpu:
        self.last.update(self._descendants())
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()
        self.last.update(self._descendants())

    def split(self, browser: str, before: dict[int, tuple[float, str]]) -> tuple[float, float]:
        """(browser CPU s, other CPU s) since `before`; this process's own CPU counts as other."""
        own = os.times()
        spent: defaultdict[str, float] = defaultdict(float)
        for pid, (cpu, cmd) in self.last.items():
            spent["browser" if browser in cmd else "other"] += cpu - before.get(pid, (0.0, ""))[0]
        return spent["browser"], spent["other"] + own.user + own.system


async def measure(setups: dict[str, tuple[str, list[str]]], episodes: int, rounds: int,
                  k: int) -> dict[str, list[tuple[float, ...]]]:
    """Per setup (name -> the browser's binary and its launch flags), one row per round."""
    specs = sample(load_site_catalog(), episodes)
    runs = Path(tempfile.mkdtemp(prefix="webchaos-bench-"))
    results: dict[str, list[tuple[float, ...]]] = {name: [] for name in setups}
    async with Services(state_dir=runs / "state") as stack:
        await timed_run(specs[:2], runs, "warm-up", k, stack=stack)
        for round_no in range(rounds):
            order = list(setups) if round_no % 2 == 0 else list(reversed(setups))
            for name in order:
                binary, pool.CHROMIUM_ARGS = setups[name]  # each run launches its own browser with them
                os.environ["WEBCHAOS_CHROMIUM"] = binary
                own_before = os.times()
                with TreeCpu(os.getpid()) as cpu:
                    before = dict(cpu.last)
                    summary, wall = await timed_run(specs, runs, f"{name}-{round_no}", k, stack=stack)
                browser_s, other_s = cpu.split(binary, before)
                other_s -= own_before.user + own_before.system
                passed = sum(1 for r in summary.episodes if r.success)
                results[name].append((wall, browser_s, other_s, passed, len(summary.episodes)))
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=12)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("-k", type=int, default=2, help="episodes at once")
    parser.add_argument("--chromium", default="/usr/lib/chromium/chromium")
    parser.add_argument("--shell", default="/usr/lib/chromium/chromium-headless-shell")
    parser.add_argument("--flag", action="append", default=[],
                        help="compare the shell as launched with the shell with this flag added (repeatable)")
    args = parser.parse_args()
    binaries = (args.shell,) if args.flag else (args.chromium, args.shell)
    for binary in binaries:
        if not os.access(binary, os.X_OK):
            raise SystemExit(f"{binary}: not installed (apt-get install -y chromium chromium-headless-shell)")
    launched = list(pool.CHROMIUM_ARGS)
    if args.flag:
        setups = {"shell": (args.shell, launched), "shell+flags": (args.shell, [*launched, *args.flag])}
        print(f"flags added: {' '.join(args.flag)}")
    else:
        setups = {"chromium": (args.chromium, launched), "headless-shell": (args.shell, launched)}
    results = asyncio.run(measure(setups, args.episodes, args.rounds, args.k))
    first = next(iter(setups))
    print(f"{args.episodes} episodes (reference agent, seed 1), {args.k} at once, {args.rounds} rounds per browser; "
          f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'browser':<15} {'passed':>7} {'wall s/ep':>10} {'browser CPU s/ep':>17} {'total CPU s/ep':>15}"
          f" {'rest CPU s/ep':>14} {'total vs ' + first:>18} {'ep/min vs ' + first:>19}")
    base: tuple[float, float] | None = None
    for name, rows in results.items():
        n = sum(r[4] for r in rows)
        wall, browser_s, other_s = (sum(r[i] for r in rows) / n for i in range(3))
        passed = sum(int(r[3]) for r in rows)
        total = browser_s + other_s
        base = base or (total, wall)
        print(f"{name:<15} {passed:>3}/{n:<3} {wall:>10.2f} {browser_s:>17.2f} {total:>15.2f} {other_s:>14.2f}"
              f" {total / base[0]:>17.2f}x {base[1] / wall:>18.2f}x")


if __name__ == "__main__":
    main()
