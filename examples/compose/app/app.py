"""A backend beside the sandbox, in Python's standard library only.

At start it links one account (link token, public token, exchange), stores the connection's
accessToken, creates the connection's webhook (WEBHOOK_URL, its own address on the compose
network) and, once the connection has synced, reads a page of users. It receives the signed
events on POST /webhooks: each is verified against the accessToken of the connection named in
x-service-connection-id, over the raw body and the x-service-timestamp header as sent (a stale
timestamp, more than 5 minutes off, is refused too), and processed once per eventId (delivery
is at least once: a duplicate is answered 200 and not processed again).

GET /status shows what it did: the connection, the users it read and every event processed.
"""

import hashlib
import hmac
import json
import os
import signal
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SANDBOX_URL = os.environ.get("SANDBOX_URL", "http://crm-sandbox:4010")
API_KEY = os.environ.get("SANDBOX_API_KEY", "sandbox-api-key")
WEBHOOK_URL = os.environ.get("WEBHOOK_URL", "http://app:8000/webhooks")
PORT = int(os.environ.get("PORT", "8000"))
TOLERANCE_SECONDS = 300

lock = threading.Lock()
access_tokens = {}  # connectionId -> accessToken, stored at exchange
seen_event_ids = set()
state = {"connectionId": None, "users": [], "events": [], "duplicates": 0, "rejected": 0}


def call(method, path, body=None):
    """One call to the sandbox's API, as to the real service: JSON in, JSON out."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(SANDBOX_URL + path, data=data, method=method)
    request.add_header("service-api-token", API_KEY)
    if data is not None:
        request.add_header("content-type", "application/json")
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def signature_ok(access_token, body, timestamp, signature):
    """sha256(accessToken + raw body + x-service-timestamp) as lowercase hex, compared in constant time."""
    if not (access_token and timestamp and signature):
        return False
    expected = hashlib.sha256(access_token.encode() + body + timestamp.encode()).hexdigest()
    return hmac.compare_digest(expected, signature)


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        if self.path != "/webhooks":
            return self.answer(404)
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        timestamp = self.headers.get("x-service-timestamp")
        with lock:
            access_token = access_tokens.get(self.headers.get("x-service-connection-id"))
        if not signature_ok(access_token, body, timestamp, self.headers.get("x-service-signature")):
            return self.reject(401)
        if not timestamp.isdigit() or abs(time.time() - int(timestamp)) > TOLERANCE_SECONDS:
            return self.reject(400)
        event = json.loads(body)
        with lock:
            if event["eventId"] in seen_event_ids:
                state["duplicates"] += 1
                return self.answer(200)
            seen_event_ids.add(event["eventId"])
            state["events"].append({"eventId": event["eventId"], "type": event["type"], "data": event["data"]})
        self.answer(204)

    def do_GET(self):
        if self.path != "/status":
            return self.answer(404)
        with lock:
            payload = json.dumps(state).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def reject(self, status):
        with lock:
            state["rejected"] += 1
        self.answer(status)

    def answer(self, status):
        self.send_response(status)
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, format, *args):
        print(f"app: {self.command} {self.path} {args[1] if len(args) > 1 else ''}", flush=True)


def has_status(status):
    with lock:
        return any(e["type"] == "STATUS_CHANGE" and e["data"].get("status") == status for e in state["events"])


def link_and_read():
    """The link flow, the webhook, then a page of users once the connection has synced."""
    link_token = call("POST", "/link/token")["linkToken"]
    print(f"app: link token {link_token[:9]}…", flush=True)
    # The real service turns a link token into a public token in its widget; the sandbox, in one call.
    public_token = call("POST", "/sandbox/public-token", {"integrationId": "hubspot"})["publicToken"]
    connection = call("POST", "/link/exchange", {"publicToken": public_token})
    with lock:
        access_tokens[connection["connectionId"]] = connection["accessToken"]
        state["connectionId"] = connection["connectionId"]
    call("POST", "/connection/webhook", {"accessToken": connection["accessToken"], "webhook": {"webhookUrl": WEBHOOK_URL}})
    print(f"app: linked connection {connection['connectionId']}; webhook {WEBHOOK_URL}", flush=True)
    while not has_status("INITIAL_SYNCED"):
        time.sleep(0.2)
    page = call("GET", f"/engagement/users?accessToken={connection['accessToken']}&limit=5")
    with lock:
        state["users"] = [user["id"] for user in page["users"]]
    print(f"app: read {len(page['users'])} users", flush=True)


if __name__ == "__main__":
    # PID 1 in its container: without a handler SIGTERM would be ignored until the stop times out.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    server = ThreadingHTTPServer(("0.0.0.0", PORT), Handler)
    print(f"app: listening on :{PORT}", flush=True)
    threading.Thread(target=link_and_read, daemon=True).start()
    server.serve_forever()
