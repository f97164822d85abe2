in=$(cat)
case "$in" in *ran_a_*) printf '%s\n' '{"hookSpecificOutput":{"hookEventName":"PreSkillShellCommand","permissionDecision":"deny","permissionDecisionReason":"no-a"}}';; *ran_b_*) sleep 1;; esac
exit 0
