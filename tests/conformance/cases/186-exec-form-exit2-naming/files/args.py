#!/usr/bin/env python3
import json, os, sys
data = json.load(sys.stdin)
ev = data.get("hook_event_name", "unknown")
p = os.environ.get("CLAUDE_PROJECT_DIR", "")
os.makedirs(os.path.join(p or ".", "marks"), exist_ok=True)
def m(name): open(os.path.join(p or ".", "marks", ev + "_" + name), "w").close()
a = sys.argv[1:]
m("argc_%d" % len(a))
m("arg1_is_projdir" if a and a[0] == p else "arg1_literal_placeholder" if a and a[0] == "${CLAUDE_PROJECT_DIR}" else "arg1_other")
if len(a) > 1:
    m("arg2_" + a[1].replace(" ", "SPACE"))
if len(a) > 2:
    m("arg3_literal_dollar_home" if a[2] == "$HOME" else "arg3_expanded")
if ev == "PostToolUse" and len(a) > 1 and a[1] == "post":
    print(json.dumps({"hookSpecificOutput": {"hookEventName": ev, "additionalContext": "EXEC-FORM-CTX argc=%d" % len(a)}}))
if ev == "PostToolUse" and len(a) > 1 and a[1] == "exit2":
    sys.stderr.write("exec-form-post-feedback\n")
    sys.exit(2)
