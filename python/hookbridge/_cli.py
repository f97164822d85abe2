"""The `hookbridge` command of the Python package: the native binary shipped inside it.

A wheel built by `scripts/build-wheel.sh` carries the release `hookbridge` executable in
`hookbridge/bin/`; this entry point replaces the Python process with it (`os.execv`), so the
command behaves exactly as the binary does — same arguments, exit codes, stdin and stdout — and
`hookbridge install-into` registers the binary itself with Claude Code, not this shim (hook latency
then never includes Python's start-up).
"""

import os
import sys
from pathlib import Path


def binary() -> Path:
    """Where the shipped executable is."""
    return Path(__file__).resolve().parent / "bin" / "hookbridge"


def main() -> None:
    path = binary()
    if not os.access(path, os.X_OK):
        sys.stderr.write(
            f"hookbridge: this installation of the Python package has no hookbridge executable ({path});\n"
            "build the wheel with `bash scripts/build-wheel.sh`, or install the command with\n"
            "`cargo install --locked --path crates/hookbridge-cli`\n"
        )
        sys.exit(1)
    os.execv(path, [str(path), *sys.argv[1:]])


if __name__ == "__main__":
    main()
