#!/bin/sh
# PreSkillShellCommand test hook: its answer depends on the file the inline command touches
in=$(cat)
j() { printf '%s\n' "$1"; }
case "$in" in
  *ran_exit0\ *) exit 0 ;;
  *ran_exit2\ *) echo "exit2-stderr-msg" >&2; exit 2 ;;
  *ran_exit2empty\ *) exit 2 ;;
  *ran_exit1\ *) echo "exit1-stderr-msg" >&2; exit 1 ;;
  *ran_exit3out\ *) echo "exit3-stdout-msg"; exit 3 ;;
  *ran_plain\ *) echo "plain-stdout-msg" ;;
  *ran_allow\ *) j '{"hookSpecificOutput":{"hookEventName":"PreSkillShellCommand","permissionDecision":"allow","permissionDecisionReason":"allow-R"}}' ;;
  *ran_denyr\ *) j '{"hookSpecificOutput":{"hookEventName":"PreSkillShellCommand","permissionDecision":"deny","permissionDecisionReason":"deny-R"}}' ;;
  *ran_denyn\ *) j '{"hookSpecificOutput":{"hookEventName":"PreSkillShellCommand","permissionDecision":"deny"}}' ;;
  *ran_denynl\ *) j '{"hookSpecificOutput":{"hookEventName":"PreSkillShellCommand","permissionDecision":"deny","permissionDecisionReason":"line-one\nline-two"}}' ;;
  *ran_denylong\ *) j '{"hookSpecificOutput":{"hookEventName":"PreSkillShellCommand","permissionDecision":"deny","permissionDecisionReason":"LLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLL"}}' ;;
  *ran_askr\ *) j '{"hookSpecificOutput":{"hookEventName":"PreSkillShellCommand","permissionDecision":"ask","permissionDecisionReason":"ask-R"}}' ;;
  *ran_defer\ *) j '{"hookSpecificOutput":{"hookEventName":"PreSkillShellCommand","permissionDecision":"defer"}}' ;;
  *ran_updin\ *) j '{"hookSpecificOutput":{"hookEventName":"PreSkillShellCommand","permissionDecision":"allow","updatedInput":{"command":"touch ran_updated_cmd"}}}' ;;
  *ran_updpermpssc\ *) j '{"hookSpecificOutput":{"hookEventName":"PreSkillShellCommand","permissionDecision":"allow","updatedPermissions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"ls:*"}],"behavior":"allow","destination":"session"}]}}' ;;
  *ran_ctx\ *) j '{"hookSpecificOutput":{"hookEventName":"PreSkillShellCommand","additionalContext":"CTX-PSSC"}}' ;;
  *ran_sysmsg\ *) j '{"systemMessage":"SYSMSG-PSSC"}' ;;
  *ran_block\ *) j '{"decision":"block","reason":"legacy-block-R"}' ;;
  *ran_pretooldeny\ *) j '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"pretooluse-deny-R"}}' ;;
  *ran_permreqdeny\ *) j '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"permreq-deny-M"}}}' ;;
  *ran_permrequpd\ *) j '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedPermissions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"ls:*"}],"behavior":"allow","destination":"session"}]}}}' ;;
  *ran_upsctx\ *) j '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"WRONG-EVENT-CTX"}}' ;;
  *) exit 0 ;;
esac
