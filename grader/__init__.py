"""Grading from server state: oracle client, state diff, canonical_diff matching."""

from grader.diff import StateDiff, compute_diff
from grader.oracle_client import OracleClient, OracleError
from grader.verdict import CheckResult, SubgoalResult, Verdict, grade

__all__ = [
    "CheckResult",
    "OracleClient",
    "OracleError",
    "StateDiff",
    "SubgoalResult",
    "Verdict",
    "compute_diff",
    "grade",
]
