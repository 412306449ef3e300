import Foundation
@testable import NetworkLayer

/// The server's answer to a WebSocket upgrade (RFC 6455 §4.1), as read off the socket up to its
/// blank line: either any bytes, or a head built from the input: a status line (`HTTP/1.1 101`,
/// other versions and statuses, odd spacing), then `Upgrade`, `Connection`, `Sec-WebSocket-Accept`
/// (right for the key, for another key, twice, absent), `Sec-WebSocket-Protocol` (offered or not)
/// and `Sec-WebSocket-Extensions` lines in any case and order, with lines of any bytes among them.
///
/// Checked: reading the head and checking it never trap; a head is read only from an
/// `HTTP/1.0` or `HTTP/1.1` status line with a three-digit status from 100 to 599, and its fields
/// hold no CR, LF or NUL; a head that passes the checks carries `Upgrade: websocket`, a
/// `Connection` naming `upgrade`, exactly one `Sec-WebSocket-Accept` that answers the key, a
/// subprotocol only if one offered was chosen (at most one), and the extension answer
/// `PerMessageDeflate.accepted` reads (the `websocket-extensions` target checks that reading).
enum WebSocketHandshakeFuzz {
    private static let statusLines = ["HTTP/1.1 101 Switching Protocols", "HTTP/1.1 101", "HTTP/1.0 101 OK", "HTTP/2 101",
                                      "HTTP/1.1 200 OK", "HTTP/1.1 1010", "HTTP/1.1 +01 x", "HTTP/1.1  101", "http/1.1 101", ""]
    private static let names = ["Upgrade", "upgrade", "Connection", "CONNECTION", "Sec-WebSocket-Accept", "sec-websocket-accept",
                                "Sec-WebSocket-Protocol", "Sec-WebSocket-Extensions", "X-Other", " Upgrade", "Upgrade ", ""]
    private static let values = ["websocket", "WebSocket", "Upgrade", "keep-alive, Upgrade", "upgradex", "chat", "superchat",
                                 "chat, superchat", "permessage-deflate", "permessage-deflate; client_max_window_bits=10",
                                 "permessage-deflate; ;x", "", " ", "\u{0}", "é"]

    static func check(_ data: Data) throws(FuzzFailure) {
        var bytes = FuzzBytes(data)
        let key = Data(bytes.take(16)).base64EncodedString()
        let offered = [[], ["chat"], ["chat", "superchat"]][bytes.choice(3)]
        let compression: WebSocketOptions.Compression = bytes.bool() ? .permessageDeflate : .none
        let raw: [UInt8]
        if bytes.choice(4) == 0 {
            raw = bytes.rest()
        } else {
            var lines = [statusLines[bytes.choice(statusLines.count)]]
            for _ in 0..<bytes.choice(10) {
                switch bytes.choice(5) {
                case 0: lines.append("Sec-WebSocket-Accept: " + (bytes.bool() ? WebSocketHandshake.accept(for: key) : WebSocketHandshake.accept(for: "x")))
                case 1: lines.append(String(decoding: bytes.take(bytes.choice(24)), as: UTF8.self))
                default: lines.append(names[bytes.choice(names.count)] + [":", ": ", ":\t", ""][bytes.choice(4)] + values[bytes.choice(values.count)])
                }
            }
            raw = Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
        }

        guard case .success(let head) = WebSocketHandshake.parseHead(raw[...]) else { return }
        let statusLine = String(decoding: raw, as: UTF8.self).components(separatedBy: "\r\n").first ?? ""
        try require(statusLine.hasPrefix("HTTP/1.1 ") || statusLine.hasPrefix("HTTP/1.0 "), "a head was read from \(statusLine.debugDescription)")
        try require((100...599).contains(head.status), "the status \(head.status)")
        for field in head.fields {
            try require(!(field.name + field.value).contains { $0 == "\r" || $0 == "\n" || $0 == "\0" },
                        "the field \(field.name.debugDescription): \(field.value.debugDescription)")
        }

        guard case .success(let agreement) = WebSocketHandshake.check(head, key: key, protocols: offered, compression: compression) else { return }
        try require(head.values("Upgrade").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == "websocket" },
                    "accepted without Upgrade: websocket: \(head.fields)")
        try require(head.values("Connection").contains { $0.lowercased().split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == "upgrade" } },
                    "accepted without Connection: upgrade: \(head.fields)")
        try require(head.values("Sec-WebSocket-Accept") == [WebSocketHandshake.accept(for: key)], "accepted with \(head.values("Sec-WebSocket-Accept"))")
        let chosen = head.values("Sec-WebSocket-Protocol")
        try require(agreement.subprotocol == chosen.first && chosen.count <= 1 && chosen.allSatisfy(offered.contains),
                    "the subprotocol \(String(describing: agreement.subprotocol)) from \(chosen), offered \(offered)")
        let extensions = try? PerMessageDeflate.accepted(head.values("Sec-WebSocket-Extensions"), offer: compression.deflate)
        try require(extensions == agreement.deflate, "the extensions agreed \(String(describing: agreement.deflate)), read \(String(describing: extensions))")
    }
}
