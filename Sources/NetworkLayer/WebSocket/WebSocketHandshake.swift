internal import CNetworkLayerCurl
import Foundation

/// The opening handshake (RFC 6455 §4.1): the headers a WebSocket request carries, the request
/// as written on the connected socket, and the checks of the server's answer.
enum WebSocketHandshake {
    /// The headers that make a GET an upgrade, after the request's own: a fresh key for each
    /// request, the subprotocols and the compression offered.
    static func headers(protocols: [String], compression: WebSocketOptions.Compression) -> [(name: String, value: String)] {
        var key = [UInt8](repeating: 0, count: 16)
        var generator = SystemRandomNumberGenerator()
        for index in key.indices { key[index] = generator.next() }
        var headers: [(name: String, value: String)] = [
            ("Upgrade", "websocket"), ("Connection", "Upgrade"),
            ("Sec-WebSocket-Key", Data(key).base64EncodedString()), ("Sec-WebSocket-Version", "13"),
        ]
        if !protocols.isEmpty { headers.append(("Sec-WebSocket-Protocol", protocols.joined(separator: ", "))) }
        if let offer = compression.deflate { headers.append(("Sec-WebSocket-Extensions", PerMessageDeflate.header(offering: offer))) }
        return headers
    }

    /// What a subprotocol name may be: an HTTP token (RFC 6455 §4.1, RFC 9110 §5.6.2).
    static func problem(withProtocol name: String) -> String? {
        let separators = Set("()<>@,;:\\\"/[]?={} \t")
        guard !name.isEmpty, name.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F && !separators.contains(Character($0)) }) else {
            return "the WebSocket subprotocol \"\(HeaderFields.printable(name))\" is not a token (letters, digits and !#$%&'*+-.^_`|~)"
        }
        return nil
    }

    /// `Sec-WebSocket-Accept` for `key`: Base64 of the SHA-1 of the key and the RFC's GUID.
    static func accept(for key: String) -> String {
        let input = Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8)
        var digest = [UInt8](repeating: 0, count: Int(NL_SHA1_LENGTH))
        _ = nl_sha1(input, input.count, &digest)
        return Data(digest).base64EncodedString()
    }

    /// The request as sent on the socket: `GET <target> HTTP/1.1`, `Host`, then `lines` (the
    /// request's headers and the library's, as the plan renders them for libcurl).
    static func requestBytes(url: String, lines: [(name: String, value: String)]) -> [UInt8] {
        let (authority, target) = Self.split(url)
        var text = "GET \(target) HTTP/1.1\r\nHost: \(authority)\r\n"
        for line in lines where line.name.lowercased() != "host" { text += "\(line.name): \(line.value)\r\n" }
        text += "\r\n"
        return Array(text.utf8)
    }

    /// The authority (host and a non-default port) and the origin-form target (path and query)
    /// of a plain http(s) URL's text.
    static func split(_ url: String) -> (authority: String, target: String) {
        let isHTTPS = url.lowercased().hasPrefix("https://")
        var rest = Substring(url)
        if let range = rest.range(of: "://") { rest = rest[range.upperBound...] }
        if let fragment = rest.firstIndex(of: "#") { rest = rest[..<fragment] }
        let end = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        var authority = rest[..<end]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        let defaultPort = isHTTPS ? ":443" : ":80"
        if authority.hasSuffix(defaultPort) { authority = authority.dropLast(defaultPort.count) }
        var target = String(rest[end...])
        if target.isEmpty { target = "/" } else if target.hasPrefix("?") { target = "/" + target }
        return (String(authority), target)
    }

    /// A response head read off the socket.
    struct Head: Equatable {
        var status: Int
        var fields: [(name: String, value: String)]

        static func == (lhs: Head, rhs: Head) -> Bool {
            lhs.status == rhs.status && lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
        }

        func values(_ name: String) -> [String] {
            fields.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
        }
    }

    /// The head in `bytes` up to its blank line, or why it is not HTTP/1.1: a status line
    /// `HTTP/1.x NNN reason`, then `name: value` lines (obsolete folding refused).
    static func parseHead(_ bytes: ArraySlice<UInt8>) -> Result<Head, WebSocketProtocolError> {
        let text = String(decoding: bytes, as: UTF8.self)
        var lines = text.components(separatedBy: "\r\n")
        while lines.last == "" { lines.removeLast() }
        guard let statusLine = lines.first else { return .failure(.init(.protocolError, "the server sent an empty answer")) }
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0] == "HTTP/1.1" || parts[0] == "HTTP/1.0", parts[1].count == 3,
              let status = Int(parts[1]), (100...599).contains(status) else {
            return .failure(.init(.protocolError, "the server did not answer with an HTTP/1.1 status line: \"\(HeaderFields.printable(String(statusLine.prefix(80))))\""))
        }
        var fields: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            // CR, LF and NUL are looked for as bytes: Foundation's `contains` compares whole
            // characters, and misses a CR that a combining mark follows.
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex, !line.hasPrefix(" "), !line.hasPrefix("\t"),
                  !line.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }) else {
                return .failure(.init(.protocolError, "the server's handshake answer has a malformed header line: \"\(HeaderFields.printable(String(line.prefix(80))))\""))
            }
            let name = String(line[..<colon])
            guard !name.contains(" "), !name.contains("\t") else {
                return .failure(.init(.protocolError, "the server's handshake answer has a malformed header name: \"\(HeaderFields.printable(name))\""))
            }
            fields.append((name, line[line.index(after: colon)...].trimmingCharacters(in: CharacterSet(charactersIn: " \t"))))
        }
        return .success(Head(status: status, fields: fields))
    }

    /// What the server agreed to.
    struct Agreement: Equatable {
        var subprotocol: String?
        var deflate: PerMessageDeflate?
    }

    /// Checks a 101 answer against the request's key and offers (§4.1, client steps 1–6).
    static func check(_ head: Head, key: String, protocols: [String],
                      compression: WebSocketOptions.Compression) -> Result<Agreement, WebSocketProtocolError> {
        func fail(_ reason: String) -> Result<Agreement, WebSocketProtocolError> { .failure(.init(.protocolError, reason)) }
        guard head.values("Upgrade").contains(where: { $0.trimmingCharacters(in: .whitespaces).lowercased() == "websocket" }) else {
            return fail("the server's 101 answer lacks \"Upgrade: websocket\"")
        }
        let connection = head.values("Connection").flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard connection.contains("upgrade") else { return fail("the server's 101 answer lacks \"Connection: Upgrade\"") }
        let accepts = head.values("Sec-WebSocket-Accept")
        guard accepts.count == 1, accepts[0] == accept(for: key) else {
            return fail("the server's Sec-WebSocket-Accept does not answer the request's key: it is not a WebSocket server for this request, or something in between altered the handshake")
        }
        var agreement = Agreement()
        let chosen = head.values("Sec-WebSocket-Protocol")
        if !chosen.isEmpty {
            guard chosen.count == 1, protocols.contains(chosen[0]) else {
                return fail("the server chose the subprotocol \"\(HeaderFields.printable(chosen.joined(separator: ", ")))\", which was not offered"
                            + (protocols.isEmpty ? "" : " (offered: \(protocols.joined(separator: ", ")))"))
            }
            agreement.subprotocol = chosen[0]
        }
        do {
            agreement.deflate = try PerMessageDeflate.accepted(head.values("Sec-WebSocket-Extensions"), offer: compression.deflate)
        } catch {
            return .failure(error)
        }
        return .success(agreement)
    }
}
