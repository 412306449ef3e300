#!/usr/bin/env python3
"""Reads a HAR file with haralyzer (PyPI), an independent reader, run by the .venv's Python.

    .venv/bin/python har_reader.py FILE

Checks the fields HAR 1.2 requires of every entry (and their types) and what Chromium DevTools'
HAR importer (front_end/models/har/HARFormat.ts) throws on, then prints one line of
JSON: {"version", "creator", "entries": [{"method", "url", "status", "requestHeaders",
"responseHeaders", "requestText", "responseText", "responseEncoding", "contentSize", "timings",
"time", "started", "serverIPAddress", "error"}]}, read through haralyzer's HarParser and
HarEntry. Exits with 1 and a message on standard error when the file is not HAR 1.2.
"""

import json
import re
import sys

from haralyzer import HarParser

REQUIRED = {
    "entry": {"startedDateTime": str, "time": (int, float), "request": dict, "response": dict, "cache": dict, "timings": dict},
    "request": {"method": str, "url": str, "httpVersion": str, "cookies": list, "headers": list, "queryString": list,
                "headersSize": int, "bodySize": int},
    "response": {"status": int, "statusText": str, "httpVersion": str, "cookies": list, "headers": list, "content": dict,
                 "redirectURL": str, "headersSize": int, "bodySize": int},
    "content": {"size": int, "mimeType": str},
    "timings": {"send": (int, float), "wait": (int, float), "receive": (int, float)},
}


def check(kind, value):
    for key, expected in REQUIRED[kind].items():
        if key not in value or not isinstance(value[key], expected):
            sys.exit(f"{kind} lacks {key} of type {expected}: {json.dumps(value)[:300]}")


# ECMAScript's date-time string format, which `new Date(text)` parses in every engine.
ECMASCRIPT_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$")


def check_devtools(log):
    """DevTools' importer throws when a part is not an object, a date does not parse, or a number
    field is not a number (optional ones only when present)."""
    def is_number(value):
        return isinstance(value, (int, float)) and not isinstance(value, bool)

    def need(condition, what, value):
        if not condition:
            sys.exit(f"DevTools would refuse {what}: {json.dumps(value)[:300]}")

    need(isinstance(log.get("creator"), dict), "log.creator", log)
    for entry in log["entries"]:
        need(isinstance(entry, dict), "an entry", entry)
        need(ECMASCRIPT_DATE.match(str(entry.get("startedDateTime"))) is not None, "startedDateTime", entry.get("startedDateTime"))
        need(is_number(entry.get("time")), "time", entry.get("time"))
        for part in ("request", "response", "timings"):
            need(isinstance(entry.get(part), dict), part, entry.get(part))
        request, response, timings = entry["request"], entry["response"], entry["timings"]
        for name in ("headersSize", "bodySize"):
            need(is_number(request.get(name)) and is_number(response.get(name)), name, entry)
        need("postData" not in request or isinstance(request["postData"], dict), "request.postData", request.get("postData"))
        need(is_number(response.get("status")), "response.status", response.get("status"))
        need(isinstance(response.get("content"), dict) and is_number(response["content"].get("size")), "response.content", response)
        for name in ("send", "wait", "receive"):
            need(is_number(timings.get(name)), f"timings.{name}", timings)
        for name in ("blocked", "dns", "connect", "ssl"):
            need(name not in timings or is_number(timings[name]), f"timings.{name}", timings)


def main():
    parser = HarParser.from_file(sys.argv[1])
    log = parser.har_data
    if log.get("version") != "1.2" or not isinstance(log.get("entries"), list):
        sys.exit("not a HAR 1.2 log")
    check_devtools(log)
    entries = []
    for page in parser.pages:
        for entry in page.entries:
            raw = entry.raw_entry
            check("entry", raw)
            check("request", raw["request"])
            check("response", raw["response"])
            check("content", raw["response"]["content"])
            check("timings", raw["timings"])
            entries.append({
                "method": entry.request.method,
                "url": entry.request.url,
                "status": entry.response.status,
                "requestHeaders": {h["name"]: h["value"] for h in entry.request.headers},
                "responseHeaders": {h["name"]: h["value"] for h in entry.response.headers},
                "requestText": entry.request.text,
                "responseText": raw["response"]["content"].get("text"),
                "responseEncoding": entry.response.textEncoding,
                "contentSize": entry.response.contentSize,
                "timings": raw["timings"],
                "time": raw["time"],
                "started": entry.startTime.isoformat(),
                "serverIPAddress": raw.get("serverIPAddress"),
                "error": raw.get("_error"),
            })
    print(json.dumps({"version": parser.version, "creator": parser.creator, "entries": entries}))


if __name__ == "__main__":
    main()
