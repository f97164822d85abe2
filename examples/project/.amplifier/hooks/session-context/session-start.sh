#!/usr/bin/env bash
# session-context: a SessionStart hook (matcher "startup|resume") that gives the agent a short project
# summary and sets PROJECT_STAGE for the session's shell commands.
#
# Contract (Claude Code's, run unchanged by hookbridge): the event arrives as JSON on stdin. Plain text
# on stdout with exit 0 is added to the agent's context. Lines written to the file named by
# $CLAUDE_ENV_FILE (given to SessionStart hooks only) are sourced before each Bash command the agent
# runs, so `export PROJECT_STAGE=dev` there makes the variable visible to them.
set -euo pipefail

input=$(cat)
source_name=$(printf '%s' "$input" | sed -n 's/.*"source"[[:space:]]*:[[:space:]]*"\([A-Za-z_]*\)".*/\1/p' | head -n 1)
project=${CLAUDE_PROJECT_DIR:-$PWD}
stage=dev

count() { # $1: file name pattern
    find "$project" \( -name .git -o -name .amplifier -o -name node_modules -o -name .venv -o -name target \) -prune \
        -o -type f -name "$1" -print 2>/dev/null | wc -l | tr -d ' '
}

py=$(count '*.py')
js=$(count '*.js')
hooks=""
if [ -d "$project/.amplifier/hooks" ]; then
    for dir in "$project"/.amplifier/hooks/*/; do
        [ -d "$dir" ] && hooks="${hooks:+$hooks, }$(basename "$dir")"
    done
fi

echo "Session context (${source_name:-unknown} session, from the session-context hook):"
echo "- Project: $(basename "$project") — a small inventory service (Python back end in src/app.py, JavaScript helpers in src/util.js)"
echo "- Source files: $py Python, $js JavaScript"
[ -n "$hooks" ] && echo "- Hooks guarding this session: $hooks"
[ -f "$project/CONVENTIONS.md" ] && echo "- Read CONVENTIONS.md before changing code."

env_file=${CLAUDE_ENV_FILE:-${AMPLIFIER_ENV_FILE:-}}
if [ -n "$env_file" ]; then
    if ! grep -qx "export PROJECT_STAGE=$stage" "$env_file" 2>/dev/null; then
        echo "export PROJECT_STAGE=$stage" >>"$env_file"
    fi
    echo "- Stage: $stage (PROJECT_STAGE is exported to your shell commands)"
fi
exit 0
