#!/usr/bin/env python3
"""Reads a HAR file with haralyzer (PyPI), an independent reader, run by the .venv's Python.

    .venv/bin/python har_reader.py FILE

Checks the fields HAR 1.2 requires of every entry (and their types), then prints one line of
JSON: {"version", "creator", "entries": [{"method", "url", "status", "requestHeaders",
"responseHeaders", "requestText", "responseText", "responseEncoding", "contentSize", "timings",
"time", "started", "serverIPAddress", "error"}]}, read through haralyzer's HarParser and
HarEntry. Exits with 1 and a message on standard error when the file is not HAR 1.2.
"""

import json
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


def main():
    parser = HarParser.from_file(sys.argv[1])
    log = parser.har_data
    if log.get("version") != "1.2" or not isinstance(log.get("entries"), list):
        sys.exit("not a HAR 1.2 log")
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
