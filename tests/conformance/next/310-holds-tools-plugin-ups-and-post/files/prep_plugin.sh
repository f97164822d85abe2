# ORACLE_PREPARE step (run in the project root with the run's HOME, then deleted): installs a local copy of a
# plugin named security-guidance as if from the official marketplace claude-plugins-official (absolute paths needed).
set -e
P="$HOME/.claude/plugins"
D="$P/cache/claude-plugins-official/security-guidance/1.0.0"
mkdir -p "$D/.claude-plugin" "$D/hooks" "$P/marketplaces/claude-plugins-official/.claude-plugin"
cat > "$D/.claude-plugin/plugin.json" <<'J'
{"name":"security-guidance","version":"1.0.0","description":"stand-in for the official security-guidance plugin"}
J
cat > "$D/hooks/hooks.json" <<'J'
{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"sleep 2; if [ -s ../api.jsonl ]; then touch \"$CLAUDE_PROJECT_DIR/api_request_sent_before_ups_hook_ended\"; fi; touch \"$CLAUDE_PROJECT_DIR/ups_hook_done\"; echo '{\"hookSpecificOutput\":{\"hookEventName\":\"UserPromptSubmit\",\"additionalContext\":\"HOLDS-UPS-CTX\"}}'","holdsTools":true,"timeout":20}]}],"PostToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"sleep 2; touch \"$CLAUDE_PROJECT_DIR/post_hook_done\"; echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PostToolUse\",\"additionalContext\":\"HOLDS-POST-CTX\"}}'","holdsTools":true,"timeout":20}]}]}}
J
cat > "$P/installed_plugins.json" <<J
{"version":2,"plugins":{"security-guidance@claude-plugins-official":[{"scope":"user","installPath":"$D","version":"1.0.0","installedAt":"2026-11-20T00:00:00.000Z","lastUpdated":"2026-11-20T00:00:00.000Z"}]}}
J
cat > "$P/marketplaces/claude-plugins-official/.claude-plugin/marketplace.json" <<'J'
{"name":"claude-plugins-official","owner":{"name":"Anthropic"},"plugins":[{"name":"security-guidance","source":"./plugins/security-guidance","description":"test"}]}
J
cat > "$P/known_marketplaces.json" <<J
{"claude-plugins-official":{"source":{"source":"github","repo":"anthropics/claude-plugins-official"},"installLocation":"$P/marketplaces/claude-plugins-official","lastUpdated":"2026-11-20T00:00:00.000Z"}}
J
rm -f prep_plugin.sh
