"""Grading from server state: state diff, canonical_diff matching, process metrics."""

from grader.diff import StateDiff, compute_diff
from grader.process import ProcessMetrics
from grader.trace import EpisodeTrace, load_trace
from grader.verdict import CheckResult, SubgoalResult, Verdict, grade

__all__ = [
    "CheckResult",
    "EpisodeTrace",
    "ProcessMetrics",
    "StateDiff",
    "SubgoalResult",
    "Verdict",
    "compute_diff",
    "grade",
    "load_trace",
]
