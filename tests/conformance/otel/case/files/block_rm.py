import json, sys
d = json.load(sys.stdin)
cmd = (d.get("tool_input") or {}).get("command", "")
if "rm" in cmd.split() or cmd.startswith("rm"):
    sys.stderr.write("no rm\n")
    sys.exit(2)
sys.exit(0)
