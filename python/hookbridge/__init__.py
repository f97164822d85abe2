"""hookbridge: Amplifier's hook model and Claude Code style hooks, implemented in Rust.

``hookbridge.HookRegistry`` has the Python API and the measured semantics of
``amplifier_core.HookRegistry`` 2.0.2; handlers may be sync or async and may return a
``HookResult`` (amplifier-core's or ours: anything with ``model_dump``), a dict, or ``None``.
"""

import os as _os

if _os.name != "posix":  # pragma: no cover - the native module is built for POSIX systems only
    raise ImportError(
        "hookbridge runs on Linux and macOS only: hooks run in their own process groups, "
        "with POSIX process control and socketpairs"
    )

from ._native import ALL_EVENTS, __version__
from .registry import ContextInjection, HookRegistry, HookResult, result_class

__all__ = [
    "ALL_EVENTS",
    "ContextInjection",
    "HookRegistry",
    "HookResult",
    "__version__",
    "result_class",
]
