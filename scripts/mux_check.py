#!/usr/bin/env python3
"""Claude Code vs. Claude Code + hookbridge, through the shared oracle's mux_diff.

Runs ../shared/oracle/mux_diff.py's comparison unchanged, with one addition to its text
normalization: Claude Code saves oversized hook output to a file whose name holds random ids
(`tool-results/hook-<uuid>-…-stdout.txt`, under a project slug made from the run's temporary
folder). Two direct runs of the same case differ there too, so those names are replaced by a
placeholder before comparing. Nothing else is changed.

Usage: mux_check.py HOOKBRIDGE_BIN CASE_DIR... (same as mux_diff.py)
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ORACLE = os.environ.get("HOOKBRIDGE_ORACLE_DIR", os.path.join(HERE, "..", "..", "shared", "oracle"))
sys.path.insert(0, os.path.abspath(ORACLE))

import mux_diff  # noqa: E402

PERSISTED = re.compile(r"\.claude/projects/[^\s/]+/[^\s/]+/tool-results/[^\s]+\.txt")
_normalize = mux_diff.normalize_text


def normalize_text(text, commands=()):
    return PERSISTED.sub(".claude/projects/$SLUG/$SESSION/tool-results/$PERSISTED_FILE", _normalize(text, commands))


mux_diff.normalize_text = normalize_text

if __name__ == "__main__":
    mux_diff.main()
