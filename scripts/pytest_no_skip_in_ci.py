"""A pytest plugin for scripts/test.sh: with CI=true, a skipped test fails the run.

Loaded with `-p pytest_no_skip_in_ci` (scripts/ on PYTHONPATH). A test that skips because something
it needs is missing (amplifier-core, bash, a CLI) checks nothing while the run stays green; on a
developer's machine that is a choice, in CI it is a hole. Outside CI nothing changes: skips are
reported as pytest reports them.
"""

import os

import pytest

_skipped = []


def _in_ci():
    return os.environ.get("CI") == "true"


def _reason(report):
    if isinstance(report.longrepr, tuple) and len(report.longrepr) == 3:
        return report.longrepr[2]
    return str(report.longrepr)


def pytest_runtest_logreport(report):
    if report.skipped and not hasattr(report, "wasxfail"):
        _skipped.append((report.nodeid, _reason(report)))


def pytest_collectreport(report):
    if report.skipped:
        _skipped.append((report.nodeid, _reason(report)))


def pytest_terminal_summary(terminalreporter):
    if _in_ci() and _skipped:
        terminalreporter.section("skipped under CI=true (each is a failure)", red=True, bold=True)
        for nodeid, reason in _skipped:
            terminalreporter.line(f"SKIPPED {nodeid}: {reason}")


def pytest_sessionfinish(session, exitstatus):
    if _in_ci() and _skipped and exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
