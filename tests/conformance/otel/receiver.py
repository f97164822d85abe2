#!/usr/bin/env python3
"""Tiny OTLP/HTTP receiver on loopback: appends one JSON line per POST to received.jsonl."""
import base64, json, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT = int(sys.argv[1]) if len(sys.argv) > 1 else 4318
OUT = sys.argv[2] if len(sys.argv) > 2 else "/tmp/otel-measure/received.jsonl"
LOCK = threading.Lock()

class H(BaseHTTPRequestHandler):
    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        data = self.rfile.read(n) if n else b""
        ct = self.headers.get("Content-Type", "")
        enc = self.headers.get("Content-Encoding", "")
        if enc == "gzip":
            import gzip
            data = gzip.decompress(data)
        if "json" in ct:
            try:
                body = json.loads(data.decode("utf-8"))
            except Exception:
                body = {"_raw_b64": base64.b64encode(data).decode()}
        else:
            body = base64.b64encode(data).decode()
        rec = {"path": self.path, "content_type": ct, "content_encoding": enc, "body": body}
        with LOCK, open(OUT, "a") as f:
            f.write(json.dumps(rec) + "\n")
        out = b"{}"
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)
    def log_message(self, *a):
        pass

if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", PORT), H).serve_forever()
