"""Claude Code's middle cut of a long hook message, made comparable across the two sides of a differential.

From 2.1.332 Claude Code keeps the head and the tail of a long hook message and says how much it cut
between them ("... [1950055 characters truncated] ..."). It cuts the whole message, and the message
names the registered command ("PreToolUse:Bash hook error: [<command>]: <stderr>"), which differs by
design between the two sides (the hook's own command; `hookbridge run --event …`). So with the same
stderr, the side whose command is longer keeps a few characters less of the stderr in the head and
says it cut a few more (measured, case 69: 1950055 directly, 1950061 through hookbridge, the
difference of the two commands' lengths; the tails and the texts' lengths are equal).

The same holds for the preview of the saved output that follows ("Preview (first 2KB):" then the
first 2,000 characters of the same message).

After the command is replaced by `CMD` (mux_diff.normalize_text), the view keeps the same share of the
hook's output on both sides: the first HEAD characters of what the head shows of it, and the count
of the characters cut from it then; the first PREVIEW characters of what the preview shows of it.
Equal stderr gives equal text; any other difference still shows."""

import re

# The hook's output kept in the head: less than Claude Code keeps after any command's name.
HEAD = 16384

CUT = re.compile(r"(\[CMD\]: )(.*?)(\n\n\.\.\. \[)(\d+)( characters truncated\] \.\.\.\n\n)", re.DOTALL)

# The hook's output kept in the preview: less than its 2,000 characters keep after any command's name.
PREVIEW = 1024

PREVIEWED = re.compile(r"(Preview \(first 2KB\):\n\[CMD\]: )(.*?)(\n\.\.\.\n</persisted-output>)", re.DOTALL)


def _same_share(match):
    shown, cut = match.group(2), int(match.group(4))
    if len(shown) <= HEAD:
        return match.group(0)
    return f"{match.group(1)}{shown[:HEAD]}{match.group(3)}{cut + len(shown) - HEAD}{match.group(5)}"


def _same_preview(match):
    return f"{match.group(1)}{match.group(2)[:PREVIEW]}{match.group(3)}"


# A run of one character this long or longer is written as its character and count.
RUN = 256

RUNS = re.compile(r"(.)\1{%d,}" % (RUN - 1), re.DOTALL)


def runs(text):
    """`text` with each long run of one character written `⟪c×n⟫`: nothing is lost, and a pinned
    difference of a hook's 100 KB of `E`s reads in one line."""
    return RUNS.sub(lambda m: f"\u27ea{m.group(1)}\u00d7{len(m.group(0))}\u27eb", text)


def same_share(text):
    """`text` with each middle cut and preview after a `[CMD]: ` keeping the same share of the hook's
    output."""
    return PREVIEWED.sub(_same_preview, CUT.sub(_same_share, text))


if __name__ == "__main__":
    # A self-check: two commands of different lengths, the same stderr, cut as Claude Code cuts.
    stderr = "a" * 30000 + "b" * 100000 + "c" * 5000
    def cut(command, keep=25000, tail=5000):
        message = f"PreToolUse:Bash hook error: [{command}]: {stderr}"
        head = message[:keep]
        return f"{head}\n\n... [{len(message) - keep - tail} characters truncated] ...\n\n{message[-tail:]}"
    one, other = (cut(c).replace(c, "CMD") for c in ("true", "/usr/local/bin/hookbridge run --event PreToolUse"))
    assert one != other
    assert same_share(one) == same_share(other), "the same stderr reads the same"
    assert same_share(one) != same_share(one.replace("[CMD]: a", "[CMD]: z")), "a different stderr still shows"
    assert same_share("no cut here [CMD]: ok") == "no cut here [CMD]: ok"
    preview = "Preview (first 2KB):\n[CMD]: {}\n...\n</persisted-output>"
    assert same_share(preview.format("b" * 1996)) == same_share(preview.format("b" * 1950))
    assert same_share(preview.format("z" + "b" * 1995)) != same_share(preview.format("b" * 1950))
    assert runs("x" + "E" * 300 + "y" + "E" * 255) == "x\u27eaE\u00d7300\u27eby" + "E" * 255
    print("middle_cut: ok")
