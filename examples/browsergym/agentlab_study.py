"""AgentLab experiments over webchaos environments, run by AgentLab's Ray backend (`run_experiments`), with
run_scripted.py's scripted agent (no model). AgentLab needs a venv of its own (docs/agents.md#browsergym says
which pins install); its `Study` class is not used because importing it imports browsergym.webarena, which
downloads NLTK data at import time.

    /path/to/agentlab-venv/bin/python examples/browsergym/agentlab_study.py --results DIR

Each Ray worker registers the webchaos ids when it makes the agent (AgentLab makes the agent before the env)
and runs its own `webchaos serve`. Prints each experiment's gym id, cumulative reward and AgentLab folder;
the webchaos episode folders go under $WEBCHAOS_BROWSERGYM_RUN_DIR (else webchaos's runs/<timestamp>).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from agentlab.experiments.launch_exp import run_experiments
from agentlab.experiments.loop import EnvArgs, ExpArgs

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run_scripted  # beside this script, found through the path set above
import webchaos_browsergym
from webchaos_agentlab import ScriptedAgentArgs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", default="agentlab_results", help="AgentLab's results folder")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--backend", default="ray", help="AgentLab's parallel backend: ray, joblib or sequential")
    args = parser.parse_args()
    os.environ["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).resolve().parent),
                                                os.environ.get("PYTHONPATH", "")])  # Ray workers import us
    experiments = [ExpArgs(agent_args=ScriptedAgentArgs(), env_args=EnvArgs(
        task_name=webchaos_browsergym.env_id(task, variant), task_seed=1, max_steps=40))
        for task, variant in run_scripted.EPISODES]
    run_experiments(args.jobs, experiments, Path(args.results), parallel_backend=args.backend)
    for exp in experiments:
        summary = json.loads((Path(exp.exp_dir) / "summary_info.json").read_text())
        print(json.dumps({"env_id": f"browsergym/{exp.env_args.task_name}", "reward": summary["cum_reward"],
                          "error": summary.get("err_msg"), "exp_dir": str(exp.exp_dir)}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
