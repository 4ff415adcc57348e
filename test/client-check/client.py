"""A client of the service written from its interface alone, for `crm-sandbox client-check`.

It links an account, creates the webhook, waits for the first sync (polling: a 409 means "still
syncing"), reads every page of users, mailboxes and the unified contacts, every page of a unified
search of deals, calls the passthrough, and cleans up.
Careful by default; `--flaw NAME` gives it one of the flaws client-check must catch (see FLAWS).
`--until-gone` keeps reading until the connection is deleted (client-check --delete-connection),
then stops using its token. Python's standard library only. Exit status 0 when the session ran
to its end.
"""
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

FLAWS = [
    "reads-while-syncing",  # retries a 409 at once instead of waiting for the sync (three times, then gives up)
    "ignores-retry-after",  # retries a 429 at once
    "no-backoff",  # retries a 503 at once
    "first-page-only",  # stops after the first page
    "search-first-page-only",  # stops a search after its first page
    "foreign-cursor",  # sends one connection's cursor with another connection's accessToken
    "limit-out-of-bounds",  # asks for limit=500 first
    "reuses-deleted-token",  # keeps calling with the accessToken after its 401
    "second-webhook",  # creates the webhook again instead of keeping the webhookId
    "browser-token",  # sends the API token from a browser page (Origin header)
    "exchange-twice",  # exchanges the public token a second time
    "passthrough-url",  # gives the passthrough a whole URL
]

args = sys.argv[1:]
FLAW = args[args.index("--flaw") + 1] if "--flaw" in args else None
if FLAW is not None and FLAW not in FLAWS:
    sys.exit(f"unknown flaw {FLAW}; one of {', '.join(FLAWS)}")
UNTIL_GONE = "--until-gone" in args
BASE = os.environ.get("CRM_SANDBOX_URL")
API_KEY = os.environ.get("CRM_SANDBOX_API_KEY")
if not BASE or not API_KEY:
    sys.exit("run me under crm-sandbox client-check: CRM_SANDBOX_URL and CRM_SANDBOX_API_KEY")


class Gone(Exception):
    """The connection is gone: its accessToken answered 401."""


class GaveUp(Exception):
    """The reads-while-syncing flaw: its 409s retried at once, three times, it stops reading."""


def send(method, path, query=None, body=None):
    """One HTTP request; answers (status, headers, parsed body)."""
    url = BASE + path
    if query:
        url += "?" + urllib.parse.urlencode({k: v for k, v in query.items() if v is not None})
    headers = {"service-api-token": API_KEY}
    if body is not None:
        headers["content-type"] = "application/json"
    if FLAW == "browser-token":
        headers["origin"] = "http://localhost:5173"
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, error.headers, json.loads(error.read() or b"{}")


def call(method, path, query=None, body=None):
    """A call retried as the service asks: after Retry-After on 429, with growing pauses on 5xx, after a pause on 409."""
    pause = 0.2
    attempt = 0
    syncing = 0
    while True:
        attempt += 1
        status, headers, answer = send(method, path, query, body)
        if status == 409 and FLAW == "reads-while-syncing":
            syncing += 1
            if syncing > 3:
                raise GaveUp(f"{method} {path}: still syncing after three retries at once")
            continue
        if status == 429 and attempt < 500:
            time.sleep(0.02 if FLAW == "ignores-retry-after" else int(headers["retry-after"]))
        elif status >= 500 and attempt < 6:
            if FLAW != "no-backoff":
                pause *= 2
                time.sleep(pause)
        elif status == 409 and answer.get("errorCode") == "CONNECTION_SYNCING" and attempt < 2000:
            if FLAW != "reads-while-syncing":
                time.sleep(1)
        elif status == 401 and answer.get("errorCode") == "INVALID_ACCESS_TOKEN":
            raise Gone(f"{method} {path}: the connection is gone")
        else:
            return status, answer


def ok(method, path, query=None, body=None):
    status, answer = call(method, path, query, body)
    if status >= 300:
        raise RuntimeError(f"{method} {path} answered {status}: {answer}")
    return answer


def link():
    link_token = ok("POST", "/link/token")["linkToken"]
    public_token = ok("POST", "/sandbox/public-token", body={"linkToken": link_token})["publicToken"]
    connection = ok("POST", "/link/exchange", body={"publicToken": public_token})
    if FLAW == "exchange-twice":
        call("POST", "/link/exchange", body={"publicToken": public_token})
    return connection


FIRST_CURSORS = {}  # the first nextPageCursor each list gave (the foreign-cursor flaw reuses one)


def read_all(records, access_token):
    """Every record of a list (an engagement list's name, or a unified list's path), following nextPageCursor until a page answers it null."""
    path = records if records.startswith("/") else f"/engagement/{records}"
    key = path.split("/")[-1]
    found = []
    cursor = None
    limit = 500 if FLAW == "limit-out-of-bounds" else 100
    while True:
        status, page = call("GET", path, {"accessToken": access_token, "limit": limit, "cursor": cursor})
        if status == 400 and FLAW == "limit-out-of-bounds":
            limit = 100
            continue
        if status != 200:
            raise RuntimeError(f"GET {path} answered {status}")
        found += page[key]
        cursor = page["nextPageCursor"]
        FIRST_CURSORS.setdefault(key, cursor)
        if cursor is None or FLAW == "first-page-only":
            return found


def search_all(path, key, access_token, filters):
    """Every record a unified search finds: the same filters on each page, the cursor in the body, until nextPageCursor is null."""
    found = []
    cursor = None
    while True:
        body = {"accessToken": access_token, "filters": filters, "limit": 100}
        if cursor is not None:
            body["cursor"] = cursor
        page = ok("POST", path, body=body)
        found += page[key]
        cursor = page["nextPageCursor"]
        if cursor is None or FLAW in ("first-page-only", "search-first-page-only"):
            return found


def session():
    connection = link()
    access_token = connection["accessToken"]
    hook = {"accessToken": access_token, "webhook": {"webhookUrl": "http://127.0.0.1:9/webhooks"}}
    webhook_id = ok("POST", "/connection/webhook", body=hook)["webhook"]["webhookId"]
    if FLAW == "second-webhook":
        call("POST", "/connection/webhook", body=hook)
    if FLAW == "reads-while-syncing":
        try:
            read_all("users", access_token)  # at once, retrying its 409s at once
        except GaveUp as gave_up:
            print(f"{gave_up}: stopping", flush=True)
            return
    try:
        path = "https://api.hubapi.com/crm/v3/objects/contacts" if FLAW == "passthrough-url" else "crm/v3/objects/contacts"
        status, _ = call("POST", "/crm/passthrough", body={"accessToken": access_token, "method": "GET", "path": path, "query": {"limit": "5"}})
        ok("GET", "/connection/webhook", {"accessToken": access_token, "webhookId": webhook_id})
        users = read_all("users", access_token)
        if FLAW == "foreign-cursor":
            other = link()
            call("GET", "/engagement/users", {"accessToken": other["accessToken"], "cursor": FIRST_CURSORS["users"]})
        mailboxes = read_all("mailboxes", access_token)
        contacts = read_all("/crm/contacts", access_token)
        deals = search_all("/crm/deals/search", "deals", access_token, {"name": {"not": ""}})
        print(f"read {len(users)} users, {len(mailboxes)} mailboxes, {len(contacts)} contacts, {len(deals)} deals; passthrough {status}", flush=True)
        while UNTIL_GONE:  # keep syncing until the connection is deleted under us
            read_all("users", access_token)
            time.sleep(0.5)
        ok("DELETE", "/connection/webhook", body={"accessToken": access_token, "webhookId": webhook_id})
    except Gone:
        print(f"connection {connection['connectionId']} is gone: not using its accessToken again", flush=True)
        if FLAW == "reuses-deleted-token":
            for _ in range(3):
                time.sleep(0.3)
                send("GET", "/engagement/users", {"accessToken": access_token})


session()
