#!/usr/bin/env python3
"""A loopback HTTP server that answers http hooks, for measuring what Claude Code does with them.

Usage:
  hooksrv.py PORT [--hits DIR] [--log FILE] [--idle SECONDS] [--host ADDR]   run in the foreground
  hooksrv.py --start PORT [same options]    ask a server already on PORT to quit, start one in the
                                            background (own session, fds closed), wait until it listens

Every request is answered according to its path (the query string is ignored, "." and ".." segments are
resolved first, so /ok/../deny/x is answered like /deny/x; the hits file still names the path as sent):
  /deny/<tag>              200, JSON deny with permissionDecisionReason "deny-<tag>"
  /ctx/<tag>               200, JSON allow-less answer with additionalContext "ctx-<tag>" (PreToolUse)
  /redir/<code>/<n>/<rest> <code> (301 302 303 307 308) with Location /redir/<code>/<n-1>/<rest>,
                           and when n reaches 0, Location /<rest> (so /redir/307/1/deny/x -> /deny/x)
  /abs/<code>/<url-quoted absolute URL>   <code> with that absolute Location
  /big/<bytes>             200, JSON deny whose reason is "BIG-START" + "r"*bytes + "BIG-END"
  /ws/<bytes>              200, <bytes> spaces then a JSON deny ("deny-after-ws")
  /wsnl/<bytes>            200, <bytes> of "\n" then a JSON deny ("deny-after-wsnl")
  /status/<code>/<tag>     <code>, body = JSON deny with reason "deny-<tag>"
  /empty                   200, empty body
  /status204               204, no body
  /upsctx/<tag> /postctx/<tag> /ssctx/<tag>   200, JSON additionalContext "ctx-<tag>" for that event
  /badjson                 200, a body that starts with "{" and ends with "}" but is not JSON
  /ctype/<type>/<tag>      200, JSON deny with Content-Type <type> (e.g. text%2Fplain)
  /plain/<tag>             200, text/plain body "plain answer <tag>"
  /slow/<seconds>/<tag>    sleeps, then JSON deny "deny-<tag>"
  /drop                    closes the connection without answering
  /__quit                  (GET) the server exits
Anything else: 404 with a JSON deny body "deny-unknown-path".

--hits DIR: each request leaves DIR/<METHOD>_<path with non-alphanumerics as _> holding
"event=<hook_event_name> tool=<tool_name> body=<json|empty|other>" (one line per request), so the
list of project files shows which requests arrived. --log FILE: one JSON line per request with the
headers and the body length (for measurement, not for cases). The server exits after --idle seconds
(default 60) without a request, or when the directory it was started in is deleted.
"""
import json
import os
import posixpath
import re
import socket
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

OPTS = {"hits": None, "log": None, "idle": 60.0, "host": "127.0.0.1"}
LAST = [time.monotonic()]
LOCK = threading.Lock()


def deny(reason):
    return json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                              "permissionDecisionReason": reason}}).encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def record(self, body):
        LAST[0] = time.monotonic()
        try:
            data = json.loads(body) if body else None
            kind = "json" if isinstance(data, dict) else ("empty" if not body else "other")
        except ValueError:
            data, kind = None, "other"
        data = data if isinstance(data, dict) else {}
        with LOCK:
            if OPTS["hits"]:
                os.makedirs(OPTS["hits"], exist_ok=True)
                name = self.command + "_" + re.sub(r"[^A-Za-z0-9]+", "_", self.path.split("?")[0]).strip("_")
                with open(os.path.join(OPTS["hits"], name[:120]), "a") as f:
                    f.write(f"event={data.get('hook_event_name')} tool={data.get('tool_name')} body={kind}\n")
            if OPTS["log"]:
                with open(OPTS["log"], "a") as f:
                    f.write(json.dumps({"t": time.time(), "method": self.command, "path": self.path,
                                        "headers": dict(self.headers.items()), "body_len": len(body), "body": body[:2000].decode("utf-8", "replace"),
                                        "event": data.get("hook_event_name"), "tool": data.get("tool_name")}) + "\n")

    def send(self, code, body=b"", ctype="application/json", headers=()):
        self.send_response(code)
        if ctype:
            self.send_header("Content-Type", ctype)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body and self.command != "HEAD":
            self.wfile.write(body)

    def handle_any(self):
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else b""
        path = posixpath.normpath(self.path.split("?")[0].split("#")[0])  # "/ok/../deny/x" -> "/deny/x"
        if path == "/__quit":
            self.send(200, b"bye")
            threading.Thread(target=lambda: (time.sleep(0.1), os._exit(0))).start()
            return
        self.record(body)
        parts = path.strip("/").split("/")
        head = parts[0]
        try:
            if head == "deny":
                return self.send(200, deny("deny-" + "/".join(parts[1:])))
            if head == "ctx":
                return self.send(200, json.dumps({"hookSpecificOutput": {
                    "hookEventName": "PreToolUse", "additionalContext": "ctx-" + "/".join(parts[1:])}}).encode())
            if head == "redir":
                code, n, rest = int(parts[1]), int(parts[2]), "/".join(parts[3:])
                loc = f"/redir/{code}/{n - 1}/{rest}" if n > 1 else "/" + rest
                return self.send(code, b"", None, [("Location", loc)])
            if head == "abs":
                code, target = int(parts[1]), urllib.parse.unquote("/".join(parts[2:]))
                return self.send(code, b"", None, [("Location", target)])
            if head == "big":
                n = int(parts[1])
                return self.send(200, deny("BIG-START" + "r" * n + "BIG-END"))
            if head == "ws":
                return self.send(200, b" " * int(parts[1]) + deny("deny-after-ws"))
            if head == "wsnl":
                return self.send(200, b"\n" * int(parts[1]) + deny("deny-after-wsnl"))
            if head == "status":
                return self.send(int(parts[1]), deny("deny-" + "/".join(parts[2:])))
            if head == "status204":
                return self.send(204, b"", None)
            if head == "upsctx":
                return self.send(200, json.dumps({"hookSpecificOutput": {
                    "hookEventName": "UserPromptSubmit", "additionalContext": "ctx-" + "/".join(parts[1:])}}).encode())
            if head == "postctx":
                return self.send(200, json.dumps({"hookSpecificOutput": {
                    "hookEventName": "PostToolUse", "additionalContext": "ctx-" + "/".join(parts[1:])}}).encode())
            if head == "ssctx":
                return self.send(200, json.dumps({"hookSpecificOutput": {
                    "hookEventName": "SessionStart", "additionalContext": "ctx-" + "/".join(parts[1:])}}).encode())
            if head == "badjson":
                return self.send(200, b'{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", '
                                      b'"additionalContext": "A\nB"}} trailing}')
            if head == "empty":
                return self.send(200, b"", None)
            if head == "ctype":
                return self.send(200, deny("deny-" + "/".join(parts[2:])), urllib.parse.unquote(parts[1]))
            if head == "plain":
                return self.send(200, ("plain answer " + "/".join(parts[1:])).encode(), "text/plain")
            if head == "slow":
                time.sleep(float(parts[1]))
                return self.send(200, deny("deny-" + "/".join(parts[2:])))
            if head == "drop":
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
        except (BrokenPipeError, ConnectionResetError):
            return
        return self.send(404, deny("deny-unknown-path"))

    do_POST = do_GET = do_PUT = do_HEAD = do_DELETE = do_PATCH = handle_any


def listening(port, host):
    try:
        socket.create_connection((host, port), timeout=0.2).close()
        return True
    except OSError:
        return False


def start(port, argv):
    host = OPTS["host"]
    if listening(port, host):  # a server left from an earlier run: ask it to go
        try:
            s = socket.create_connection((host, port), timeout=1)
            s.sendall(b"GET /__quit HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            s.recv(100)
            s.close()
        except OSError:
            pass
        for _ in range(100):
            if not listening(port, host):
                break
            time.sleep(0.05)
    if os.fork() == 0:
        os.setsid()
        if os.fork() != 0:
            os._exit(0)
        fd = os.open(os.devnull, os.O_RDWR)
        for i in (0, 1, 2):
            os.dup2(fd, i)
        os.execv(sys.executable, [sys.executable, os.path.abspath(__file__), str(port)] + argv)
    for _ in range(200):
        if listening(port, host):
            return 0
        time.sleep(0.05)
    print(f"hooksrv: nothing listens on {host}:{port}", file=sys.stderr)
    return 1


def main():
    args = sys.argv[1:]
    starting = args[:1] == ["--start"]
    if starting:
        args = args[1:]
    port, rest = int(args[0]), args[1:]
    i = 0
    while i < len(rest):
        key = rest[i].lstrip("-")
        OPTS[key] = float(rest[i + 1]) if key == "idle" else rest[i + 1]
        i += 2
    if starting:
        sys.exit(start(port, rest))
    home = os.getcwd()
    server = ThreadingHTTPServer((OPTS["host"], port), Handler)
    server.daemon_threads = True

    def watch():
        while True:
            time.sleep(0.5)
            if time.monotonic() - LAST[0] > OPTS["idle"] or not os.path.isdir(home):
                os._exit(0)
    threading.Thread(target=watch, daemon=True).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
