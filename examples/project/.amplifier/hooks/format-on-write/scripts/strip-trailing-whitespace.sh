#!/usr/bin/env bash
# format-on-write: a PostToolUse hook (matcher "Write|Edit") in the Claude Code plugin layout.
#
# Strips trailing spaces and tabs from the file the agent just wrote or edited, in place, and reports
# it: `systemMessage` is shown to the user, `additionalContext` tells the agent the file changed on disk
# (so it re-reads before its next edit). A file that needs no change produces no output.
# Only text files inside the project are touched; Markdown is left alone (two trailing spaces are a
# line break there).
set -euo pipefail

if ! command -v jq >/dev/null 2>&1; then
    echo "format-on-write: jq is not installed; nothing was formatted" >&2
    exit 1
fi

file=$(jq -r '.tool_input.file_path // empty | strings')
[ -n "$file" ] || exit 0
project=${CLAUDE_PROJECT_DIR:-$PWD}
case "$file" in
/*) ;;
*) file="$project/$file" ;;
esac
case "$file" in
"$project"/*) ;;
*) exit 0 ;; # outside the project: not ours to reformat
esac
case "$file" in
*.md | *.markdown | *.diff | *.patch) exit 0 ;;
esac
[ -f "$file" ] && [ ! -L "$file" ] || exit 0
grep -Iq . "$file" 2>/dev/null || exit 0 # binary or empty

lines=$(grep -c '[[:blank:]]$' "$file" || true)
[ "${lines:-0}" -gt 0 ] || exit 0

# Write beside the file, then rename over it: a hook reading the file at the same time sees either
# the old or the new content, never half of it.
tmp=$(mktemp "$file.format-on-write.XXXXXX")
trap 'rm -f "$tmp"' EXIT
sed 's/[[:blank:]]*$//' "$file" >"$tmp"
chmod --reference="$file" "$tmp" 2>/dev/null || true
mv -f "$tmp" "$file"
trap - EXIT

shown=${file#"$project"/}
jq -cn --arg msg "format-on-write: removed trailing whitespace from $lines line(s) in $shown" \
    --arg ctx "$shown was reformatted on disk after your change (trailing whitespace removed from $lines line(s)); read it again before editing it." \
    '{systemMessage: $msg, hookSpecificOutput: {hookEventName: "PostToolUse", additionalContext: $ctx}}'
