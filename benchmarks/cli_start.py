"""How long `webchaos --help`, `webchaos list` and `webchaos faults` take from start to exit, against the floor of
any typer + rich command line measured in the same run (`python -c "import typer, rich"`), so the shared
machine's noise cancels in the ratios.

Each command runs as a user runs it (the `webchaos` console script of this environment, output to a pipe), in
rounds that take the floor and the three commands in turn; each line gives the median and the fastest of the
wall time and of the CPU time (user + system) the process used. The three keep what they print in the user's
cache folder (harness/cli/derived.py, harness/cli/entry.py): the benchmark uses a fresh one, so their first run,
which derives everything (for `list` the catalog loaded and expanded, for `faults` every fault plugin imported,
for `--help` typer's layout), is measured on its own ("cold"), and the rounds measure the runs after it
("warm"). The warm output must be byte for byte the cold one (exit 1 if not).

Target (issue 33): each command <= 0.3 s and <= 2.5x the floor. For scale, a second reference: the `--help` of a
two-command typer app, which is what typer's own help rendering costs (it imports rich's markdown, traceback
and syntax modules).

    .venv/bin/python benchmarks/cli_start.py [--rounds 11]
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

WEBCHAOS = str(Path(sys.executable).parent / "webchaos")
FLOOR = [sys.executable, "-c", "import typer, rich"]
# the smallest typer app with a command group: what `--help` costs any typer command line
TYPER_APP = '''import typer

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Two commands.")


@app.command()
def hello(name: str = "world") -> None:
    """Greet."""


@app.command()
def bye() -> None:
    """Part."""


app()
'''
COMMANDS = {"--help": [WEBCHAOS, "--help"], "list": [WEBCHAOS, "list"], "faults": [WEBCHAOS, "faults"]}


@dataclass
class Run:
    wall: float
    cpu: float
    output: bytes


def run(argv: list[str], env: dict[str, str]) -> Run:
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as errors:
        start = time.perf_counter()
        process = subprocess.Popen(argv, stdout=out, stderr=errors, env=env)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
        if process.returncode != 0:
            errors.seek(0)
            sys.exit(f"{' '.join(argv)}: exit {process.returncode}\n{errors.read().decode(errors='replace')}")
        out.seek(0)
        return Run(wall, usage.ru_utime + usage.ru_stime, out.read())


def line(name: str, runs: list[Run], floor: list[Run] | None) -> str:
    wall, cpu = statistics.median(r.wall for r in runs), statistics.median(r.cpu for r in runs)
    text = (f"{name:<16} wall median {wall * 1000:7.0f} ms (min {min(r.wall for r in runs) * 1000:5.0f})   "
            f"cpu median {cpu * 1000:6.0f} ms (min {min(r.cpu for r in runs) * 1000:5.0f})")
    if floor is not None:
        floor_wall = statistics.median(r.wall for r in floor)
        floor_cpu = statistics.median(r.cpu for r in floor)
        text += f"   x floor: wall {wall / floor_wall:4.1f}x, cpu {cpu / floor_cpu:4.1f}x"
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=11)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cache:
        # COLUMNS: the same table layout whatever terminal started the benchmark
        env = {**os.environ, "XDG_CACHE_HOME": cache, "COLUMNS": "120"}
        typer_app = Path(cache) / "typer_app.py"
        typer_app.write_text(TYPER_APP)
        cold = {name: run(COMMANDS[name], env) for name in COMMANDS}
        floor: list[Run] = []
        typer_help: list[Run] = []
        warm: dict[str, list[Run]] = {name: [] for name in COMMANDS}
        for _ in range(args.rounds):
            floor.append(run(FLOOR, env))
            typer_help.append(run([sys.executable, str(typer_app), "--help"], env))
            for name, argv in COMMANDS.items():
                warm[name].append(run(argv, env))
    changed = [name for name, first in cold.items() if any(r.output != first.output for r in warm[name])]
    floor_wall = statistics.median(r.wall for r in floor)
    floor_cpu = statistics.median(r.cpu for r in floor)
    print(f"{args.rounds} rounds; floor = python -c 'import typer, rich'")
    print(line("floor", floor, None))
    print(line("typer app --help", typer_help, floor))
    for name, first in cold.items():
        print(line(f"{name} (cold)", [first], floor))
    for name, runs in warm.items():
        print(line(name, runs, floor))
    print("target (warm): <= 2.5x the floor and <= 300 ms")
    for name, runs in warm.items():
        wall, cpu = statistics.median(r.wall for r in runs), statistics.median(r.cpu for r in runs)
        print(f"  {name:<8} {wall / floor_wall:4.1f}x wall {'ok' if wall <= 2.5 * floor_wall else 'MISSED'}, "
              f"{cpu / floor_cpu:4.1f}x cpu {'ok' if cpu <= 2.5 * floor_cpu else 'MISSED'}; "
              f"{wall * 1000:.0f} ms wall {'ok' if wall <= 0.3 else 'MISSED'}")
    if changed:
        sys.exit(f"output of a warm run differs from the cold run's: {', '.join(changed)}")
    print("output: every warm run printed what the cold run printed")


if __name__ == "__main__":
    main()
