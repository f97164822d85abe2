"""What Claude Code tells the model of the wall clock, not of the hooks, left out of a differential's
views. When the date changes during a run (one that crosses midnight), Claude Code adds "The date has
changed. Today's date is now …" to what the model is shown. One side of a differential may cross
midnight and the other not (measured: case 174, in a run at 00:00 UTC), so the notice is left out of
both sides, wherever it is: appended to another text, or an item of its own."""

import re

DATE_CHANGED = re.compile(r"(?:\n\n)?The date has changed\. Today's date is now \d{4}-\d{2}-\d{2}\.[^\n]*")


def only_the_notice(item):
    """A shown item (a list) that holds nothing but the date-change notice."""
    return isinstance(item, (list, tuple)) and any(
        isinstance(part, str) and DATE_CHANGED.fullmatch(part.strip()) for part in item)


def without_date_notice(value):
    """`value` (a view, or any part of one) without the date-change notice."""
    if isinstance(value, str):
        return DATE_CHANGED.sub("", value)
    if isinstance(value, (list, tuple)):
        return type(value)(without_date_notice(item) for item in value if not only_the_notice(item))
    if isinstance(value, dict):
        return {key: without_date_notice(item) for key, item in value.items()}
    return value


if __name__ == "__main__":
    # A self-check: the notice goes, appended or alone; any other text stays.
    notice = "The date has changed. Today's date is now 2026-11-28. No need to announce the new date \u2014 the user's own clock shows it."
    shown = [["tool_result", "ok", False], ["system", "ctx\n\n" + notice, False], ["system", notice, False]]
    assert without_date_notice(shown) == [["tool_result", "ok", False], ["system", "ctx", False]], without_date_notice(shown)
    assert without_date_notice([["system", "other", False]]) == [["system", "other", False]]
    print("wall_clock: ok")
