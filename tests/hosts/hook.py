"""The hook every host case runs: `python3 hook.py NAME`. It keeps the payload it was given in
`<payload cwd>/hooklog/NAME.json` (a list, one per run; the oracle compares these files too, so a
payload hookbridge changed on its way to the hook shows up) and answers as `actions.json[NAME]`
says: `stdout` (text, or JSON written as JSON), `stderr`, `exit`, after `sleep` seconds (to make
it finish after a hook configured later); with `first_only`, only its first run answers, later ones
exit 0 silently (a Stop hook that asks for one more turn). With `record: {"file": F, "fields": [...]}`
it also appends those fields of its payload to `<payload cwd>/F` (a list, one per run): a view of
the run for a host whose oracle leaves the payload logs out, and shows an event fired at all."""
import json
import os
import sys
import time

name = sys.argv[1]
payload = json.load(sys.stdin)
log_dir = os.path.join(payload.get("cwd") or os.getcwd(), "hooklog")
os.makedirs(log_dir, exist_ok=True)
log = os.path.join(log_dir, f"{name}.json")
runs = json.load(open(log)) if os.path.exists(log) else []
runs.append(payload)
with open(log, "w") as f:
    json.dump(runs, f, indent=1, sort_keys=True)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "actions.json")) as f:
    action = json.load(f).get(name, {})
if action.get("record"):
    record = os.path.join(payload.get("cwd") or os.getcwd(), action["record"]["file"])
    kept = json.load(open(record)) if os.path.exists(record) else []
    kept.append({k: payload.get(k) for k in action["record"].get("fields", [])})
    with open(record, "w") as f:
        json.dump(kept, f, indent=1, sort_keys=True)
if action.get("first_only") and len(runs) > 1:
    sys.exit(0)
time.sleep(action.get("sleep", 0))
out = action.get("stdout")
if out is not None:
    sys.stdout.write(out if isinstance(out, str) else json.dumps(out))
if action.get("stderr"):
    sys.stderr.write(action["stderr"])
sys.exit(action.get("exit", 0))
