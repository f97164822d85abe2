"""pytest setup of the example tests."""

import sys
from pathlib import Path

# scripts/test.sh's rule for every pytest run: with CI=true a skipped test fails the run.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
from pytest_no_skip_in_ci import *  # noqa: E402,F401,F403  (its pytest hooks, registered here)
