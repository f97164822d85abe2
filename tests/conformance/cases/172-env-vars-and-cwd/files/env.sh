#!/bin/sh
# markers about the hook's environment; $1 names the event
cat >/dev/null
d="$CLAUDE_PROJECT_DIR/marks"; mkdir -p "$d"
[ -z "${CLAUDE_PLUGIN_ROOT+x}" ] && touch "$d/$1_plugin_root_unset" || touch "$d/$1_plugin_root_set"
[ -z "${CLAUDE_PLUGIN_DATA+x}" ] && touch "$d/$1_plugin_data_unset" || touch "$d/$1_plugin_data_set"
[ "$CLAUDE_PROJECT_DIR" = "$(pwd)" ] && touch "$d/$1_projdir_eq_pwd" || touch "$d/$1_pwd_$(basename "$(pwd)")"
[ -n "$CLAUDE_CODE_SESSION_ID" ] && touch "$d/$1_session_id_set"
[ "$CLAUDECODE" = 1 ] && touch "$d/$1_claudecode_1"
[ -n "$CLAUDE_ENV_FILE" ] && touch "$d/$1_env_file_set" || touch "$d/$1_env_file_unset"
[ "$SETTINGS_ENV_VAR" = from-settings ] && touch "$d/$1_settings_env_ok"
exit 0
