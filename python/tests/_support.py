"""Helpers shared by the registry tests: the two implementations, timestamp and name normalization."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import hookbridge

try:
    import amplifier_core
    from amplifier_core.models import HookResult as KernelHookResult
except ImportError:  # pragma: no cover - the differential tests skip without it
    amplifier_core = None
    KernelHookResult = None

HAVE_KERNEL = amplifier_core is not None
KERNEL_VERSION = "2.0.2"

#: What amplifier-core stamps (chrono's to_rfc3339: 0, 3, 6 or 9 fraction digits, UTC offset).
RFC3339 = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{3}|\d{6}|\d{9}))?\+00:00$"
)
TIMESTAMP = "<rfc3339>"
UUID4 = r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"
AUTO_NAME = re.compile(rf"^_auto_(.*)_{UUID4}$")


def parse_rfc3339(text: str) -> dt.datetime | None:
    match = RFC3339.match(text)
    if match is None:
        return None
    year, month, day, hour, minute, second, fraction = match.groups()
    micros = int((fraction or "0").ljust(9, "0")[:6])
    try:
        return dt.datetime(
            int(year), int(month), int(day), int(hour), int(minute), int(second), micros, dt.timezone.utc
        )
    except ValueError:
        return None


def normalize(value: Any) -> Any:
    """Replaces every ``"timestamp"`` value that is a valid RFC 3339 UTC stamp with a placeholder, so
    two runs compare equal exactly when both have (or both lack) a stamp in the same places, and
    masks the random part of auto-generated handler names (``_auto_{event}_{uuid4}``)."""
    if isinstance(value, dict):
        return {
            key: TIMESTAMP
            if key == "timestamp" and isinstance(item, str) and parse_rfc3339(item) is not None
            else normalize(item)
            for key, item in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [normalize(item) for item in value]
    if isinstance(value, str):
        return normalize_name(value)
    return value


def normalize_name(name: str) -> str:
    match = AUTO_NAME.match(name)
    return f"_auto_{match.group(1)}_<uuid4>" if match else name


def normalize_listing(listing: dict[str, list[str]]) -> dict[str, list[str]]:
    return {event: [normalize_name(n) for n in names] for event, names in listing.items()}


def registry_classes() -> dict[str, type]:
    classes: dict[str, type] = {"hookbridge": hookbridge.HookRegistry}
    if HAVE_KERNEL:
        classes["amplifier-core"] = amplifier_core.HookRegistry
    return classes
