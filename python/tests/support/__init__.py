"""Test support for the hook-bridge Amplifier module: a scripted provider, a minimal orchestrator,
a list context manager and real tools (``modules/``), plus the harness that runs real
``amplifier_core.AmplifierSession``s with them (``harness.py``)."""
