"""The order in which `make test` hands test files to its processes (tests/conftest.py applies it in each
pytest-xdist worker; the Makefile passes --no-loadscope-reorder so that pytest-xdist keeps it).

pytest-xdist's loadfile hands out whole files, by default the files with the most tests first: the files whose
one to four tests run whole episodes, a Ray cluster or the whole catalog came last, and one process ran such a
file alone while the others had nothing left to do. The heaviest files (measured worker-seconds, heaviest first)
now go first and the many light ones fill in around them; the others keep pytest-xdist's order."""

from collections.abc import Sequence

HEAVIEST_FIRST = (  # seconds a file took in `make test` on this checkout (2026-12-06), module setups included
    "tests/harness/test_reference_agent.py",  # 200
    "tests/harness/test_ablations.py",  # 156
    "tests/harness/executors/test_ray_cluster.py",  # 118
    "tests/examples/test_browsergym.py",  # 99
    "tests/harness/test_client_faults.py",  # 85
    "tests/harness/test_crash.py",  # 84
    "tests/harness/test_api.py",  # 74
    "tests/examples/test_frameworks.py",  # 67
    "tests/harness/test_chaos_profiles_e2e.py",  # 58
    "tests/harness/test_field_dark.py",  # 49
    "tests/sites/test_digests.py",  # 49
    "tests/harness/test_injectors_e2e.py",  # 46
    "tests/test_docs.py",  # 46
    "tests/harness/test_validate.py",  # 46
    "tests/harness/test_field_checks.py",  # 44
    "tests/sites/test_catalog_determinism.py",  # 43
    "tests/harness/test_site_e2e.py",  # 43
    "tests/harness/test_catalog_check.py",  # 43
    "tests/harness/test_resume.py",  # 40
    "tests/harness/test_form_reset.py",  # 40
    "tests/sites/test_bad_input.py",  # 38
    "tests/harness/test_scripts_e2e.py",  # 37
    "tests/harness/test_isolate.py",  # 34
    "tests/harness/test_suites.py",  # 34
)


def schedule_order(nodeids: Sequence[str]) -> list[int]:
    """The indexes of `nodeids` (in collection order) in the order to run them: whole files, those of
    `HEAVIEST_FIRST` first and in its order, then the others by their number of tests, most first (pytest-xdist's
    own order), ties in collection order. A file's tests keep their order."""
    by_file: dict[str, list[int]] = {}
    for index, nodeid in enumerate(nodeids):
        by_file.setdefault(nodeid.split("::", 1)[0], []).append(index)
    rank = {path: n for n, path in enumerate(HEAVIEST_FIRST)}
    files = sorted(by_file, key=lambda path: (rank.get(path, len(rank)), 0 if path in rank else -len(by_file[path])))
    return [index for path in files for index in by_file[path]]
