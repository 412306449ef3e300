"""Raw response heads a hostile server writes byte by byte, for fault_server.py (standard library only).

Every answer here is a fixed string of bytes, sent as it is on a connection that is then closed:
http.server and hypercorn could not write them (they refuse or repair folded lines, Latin-1 bytes,
control characters). Each body is ``{"ok": true}`` unless noted, so that a request for ``FaultOK``
decodes whatever the headers did.

Paths (the query is ignored unless noted):

  /fold/first          the first header after the status line folded: ``X-Fold: first`` then the
                       continuation lines ``  second`` (two SP) and ``<HTAB>third``
  /fold/middle         the same fold between two other headers (``X-Before``, ``X-After``)
  /fold/last           the same fold on the last header before the blank line
  /fold/run            one header continued on four lines in a row, SP, HTAB and both, with
                       white space before each line break too
  /fold/empty-value    ``X-Empty:`` with nothing on its line, its value on the continuation line
  /fold/inject         issue 54's attempt: ``X-A: 1``, then `` X-Injected: evil`` and
                       ``<HTAB>Set-Cookie: sid=evil``, lines that read as headers of their own once
                       their leading white space is dropped
  /fold/after-status   a continuation line right after the status line, before any header
  /fold/after-interim  ``100 Continue`` with a header, then the final status line, then a
                       continuation line before any of its headers
  /interim-then-bare   ``100 Continue`` with a header, then a final ``200 OK`` with no header line at
                       all, its body ended by the close (libcurl's last stored header is the 1xx's)
  /fold/trailer        chunked, its trailer ``X-Trailer: one`` continued by `` two``
  /fold/trailer-first  chunked, a continuation line as the first line of its trailers
  /fold/redirect       302 to /fold/middle whose ``X-Hop`` header is folded
  /fold/content-length ``Content-Length: 12`` continued by `` 13`` (libcurl reads the first line only)
  /fold/location       302 whose ``Location: /ok`` is continued by `` /elsewhere``
  /latin1-header       ``X-Name: caf<0xE9>`` (Latin-1, not UTF-8) and ``X-Mixed: <0xE9><0xC3><0xA9>``
  /huge-header-line    one header line of 1 MiB
  /not-modified        ``304 Not Modified`` with an ``ETag``, whatever the request (which the
                       client never made conditional)
  /bidi-text           header values, a header name and a text/plain body holding the bidi controls
                       U+202A…U+202E, U+2066…U+2069, U+200E, U+200F and U+061C (UTF-8);
                       ?status=<code> for another status with ``{"message": "<the same>"}`` as the body
"""

import json

OK_BODY = b'{"ok": true}'
FOLD = b"X-Fold: first\r\n  second\r\n\tthird\r\n"
BIDI = "rtl\u202eevil\u202c lre\u202a lle\u202b pdf\u202c pdi\u2066x\u2067y\u2068z\u2069 lrm\u200e rlm\u200f alm\u061c end"


def head(status_line, lines, body=OK_BODY, content_type=b"application/json"):
    """`lines` right after the status line, then Content-Type, Content-Length and Connection."""
    out = status_line + b"\r\n" + b"".join(lines)
    out += b"Content-Type: " + content_type + b"\r\n"
    return out + b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body


def chunked(trailers):
    return (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
            b"Connection: close\r\n\r\n" + b"%x\r\n" % len(OK_BODY) + OK_BODY + b"\r\n0\r\n" + trailers + b"\r\n")


FIXED = {
    "/fold/first": head(b"HTTP/1.1 200 OK", [FOLD, b"X-After: after\r\n"]),
    "/fold/middle": head(b"HTTP/1.1 200 OK", [b"X-Before: before\r\n", FOLD, b"X-After: after\r\n"]),
    "/fold/run": head(b"HTTP/1.1 200 OK", [b"X-Run: one \r\n two\t\r\n\tthree\r\n \t four\r\n\t \tfive\r\n",
                                           b"X-After: after\r\n"]),
    "/fold/empty-value": head(b"HTTP/1.1 200 OK", [b"X-Empty:\r\n value\r\n"]),
    "/fold/inject": head(b"HTTP/1.1 200 OK", [b"X-A: 1\r\n X-Injected: evil\r\n\tSet-Cookie: sid=evil\r\n"]),
    "/fold/after-status": b"HTTP/1.1 200 OK\r\n X-Lead: evil\r\nContent-Type: application/json\r\n"
                          b"Content-Length: 12\r\nConnection: close\r\n\r\n" + OK_BODY,
    "/fold/after-interim": b"HTTP/1.1 100 Continue\r\nX-Interim: yes\r\n\r\n"
                           b"HTTP/1.1 200 OK\r\n X-Lead: evil\r\nContent-Type: application/json\r\n"
                           b"Content-Length: 12\r\nConnection: close\r\n\r\n" + OK_BODY,
    "/interim-then-bare": b"HTTP/1.1 100 Continue\r\nX-Interim: yes\r\n\r\nHTTP/1.1 200 OK\r\n\r\n" + OK_BODY,
    "/fold/trailer": chunked(b"X-Trailer: one\r\n two\r\n"),
    "/fold/trailer-first": chunked(b" X-Injected: evil\r\nX-Trailer: one\r\n"),
    "/fold/redirect": b"HTTP/1.1 302 Found\r\nLocation: /fold/middle\r\nX-Hop: a\r\n\tb\r\n"
                      b"Content-Length: 0\r\nConnection: close\r\n\r\n",
    "/fold/content-length": b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 12\r\n 13\r\n"
                            b"Connection: close\r\n\r\n" + OK_BODY + b" ",
    "/fold/location": b"HTTP/1.1 302 Found\r\nLocation: /ok\r\n /elsewhere\r\nContent-Length: 0\r\n"
                      b"Connection: close\r\n\r\n",
    "/latin1-header": head(b"HTTP/1.1 200 OK", [b"X-Name: caf\xe9\r\n", b"X-Mixed: \xe9\xc3\xa9\r\n"]),
    "/huge-header-line": head(b"HTTP/1.1 200 OK", [b"X-Huge: " + b"h" * (1024 * 1024) + b"\r\n"]),
    "/not-modified": b'HTTP/1.1 304 Not Modified\r\nETag: "v1"\r\nConnection: close\r\n\r\n',
    "/fold/last": b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 12\r\n"
                  b"Connection: close\r\n" + FOLD + b"\r\n" + OK_BODY,
}


def bidi_text(status):
    if status != 200:
        body = json.dumps({"message": "refused " + BIDI}, ensure_ascii=False).encode("utf-8")
        content_type = b"application/json"
    else:
        body = ("first line " + BIDI + "\nsecond line\n").encode("utf-8")
        content_type = b"text/plain; charset=utf-8"
    return head(b"HTTP/1.1 %d OK" % status,
                [("X-Bidi: " + BIDI + "\r\n").encode("utf-8"), "X-\u202eName: reversed name\r\n".encode("utf-8")],
                body=body, content_type=content_type)


def answer(path, status):
    """The raw answer for `path` (`status` for /bidi-text), or None when the path is not one of these."""
    if path == "/bidi-text":
        return bidi_text(status)
    return FIXED.get(path)
