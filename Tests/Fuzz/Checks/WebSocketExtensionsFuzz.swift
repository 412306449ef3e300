import Foundation
@testable import NetworkLayer

/// The server's answer to our `permessage-deflate` offer (`Sec-WebSocket-Extensions` lines of the
/// handshake's 101): an offer (context takeover or not, a window of 9 to 15 bits, or no offer), then
/// lines built from the extension's words, separators, numbers written many ways, quotes, spaces
/// and any bytes.
///
/// Checked against RFC 7692 §7 written out plainly here: nothing traps; empty list elements are
/// skipped and no element means no extension; more than one, another extension, or no offer is
/// refused; each parameter is a name, then `=` and a value for the two window sizes only, a
/// value being 1*DIGIT without a leading zero from 8 to 15, maybe in quotes; an empty, unknown,
/// repeated or malformed parameter is refused, and so is a server window above the one offered;
/// what is accepted is what the parameters say, the client's window held to the offer, and no
/// context takeover kept when we offered it.
enum WebSocketExtensionsFuzz {
    private static let words = ["permessage-deflate", "PerMessage-Deflate", "x-webkit-deflate-frame", "server_no_context_takeover",
                                "client_no_context_takeover", "server_max_window_bits", "client_max_window_bits", "Server_Max_Window_Bits",
                                ";", ";", ",", "=", "\"", " ", "\t", "\u{A0}", "8", "9", "10", "15", "16", "7", "08", "+9", "-9",
                                "0x0f", "1e1", "\u{0661}\u{0665}", "9999999999999999999999", "\u{301}", "é", "\0"]

    private enum Outcome: Equatable {
        case none
        case refused
        case accepted(PerMessageDeflate)
    }

    static func check(_ data: Data) throws(FuzzFailure) {
        var bytes = FuzzBytes(data)
        let offer: WebSocketOptions.DeflateOffer? = bytes.choice(8) == 0 ? nil
            : WebSocketOptions.DeflateOffer(noContextTakeover: bytes.bool(), maximumWindowBits: [15, 15, 9, 10, 12, 14][bytes.choice(6)])
        var lines: [String] = []
        for _ in 0..<bytes.choice(3) + 1 {
            var line = ""
            for _ in 0..<bytes.choice(12) {
                line += bytes.choice(4) == 0 ? String(decoding: bytes.take(bytes.choice(6)), as: UTF8.self) : words[bytes.choice(words.count)]
            }
            lines.append(line)
        }

        let actual: Outcome
        do {
            actual = try PerMessageDeflate.accepted(lines, offer: offer).map(Outcome.accepted) ?? .none
        } catch {
            actual = .refused
        }
        let expected = model(lines, offer: offer)
        try require(actual == expected, "\(lines.map(\.debugDescription)) with the offer \(String(describing: offer)) gave \(actual), not \(expected)")
        if case .accepted(let agreement) = actual, let offer {
            try require((8...offer.maximumWindowBits).contains(agreement.clientMaxWindowBits), "a client window of \(agreement.clientMaxWindowBits) bits")
            try require(!offer.noContextTakeover || agreement.clientNoContextTakeover, "context takeover kept though we offered none")
        }
    }

    /// The rules, over the lines as Unicode scalars: as `Character`s, a separator after a
    /// prepending mark (U+0605, a fuzzed line) would join it in one grapheme and go unseen.
    private static func model(_ lines: [String], offer: WebSocketOptions.DeflateOffer?) -> Outcome {
        var elements: [String] = []
        for line in lines {
            var element = String.UnicodeScalarView()
            for scalar in (line + ",").unicodeScalars {
                if scalar == "," {
                    let trimmed = String(element).trimmingCharacters(in: .whitespaces)
                    if !trimmed.isEmpty { elements.append(trimmed) }
                    element = String.UnicodeScalarView()
                } else {
                    element.append(scalar)
                }
            }
        }
        guard !elements.isEmpty else { return .none }
        guard elements.count == 1, let offer else { return .refused }
        var pieces: [String] = [""]
        for scalar in elements[0].unicodeScalars {
            if scalar == ";" { pieces.append("") } else { pieces[pieces.count - 1].unicodeScalars.append(scalar) }
        }
        guard pieces[0].trimmingCharacters(in: .whitespaces).lowercased() == "permessage-deflate" else { return .refused }
        var agreement = PerMessageDeflate()
        var names: Set<String> = []
        for piece in pieces.dropFirst() {
            let name: String
            var value: String?
            let scalars = piece.unicodeScalars
            if let equals = scalars.firstIndex(of: "=") {
                name = String(scalars[..<equals]).trimmingCharacters(in: .whitespaces).lowercased()
                value = String(scalars[scalars.index(after: equals)...]).trimmingCharacters(in: .whitespaces)
            } else {
                name = piece.trimmingCharacters(in: .whitespaces).lowercased()
            }
            guard names.insert(name).inserted else { return .refused }
            if let quoted = value?.unicodeScalars, quoted.count >= 2, quoted.first == "\"", quoted.last == "\"" {
                value = String(quoted.dropFirst().dropLast())
            }
            switch name {
            case "server_no_context_takeover" where value == nil:
                agreement.serverNoContextTakeover = true
            case "client_no_context_takeover" where value == nil:
                agreement.clientNoContextTakeover = true
            case "server_max_window_bits":
                guard let bits = windowBits(value), offer.maximumWindowBits == 15 || bits <= offer.maximumWindowBits else { return .refused }
            case "client_max_window_bits":
                guard let bits = windowBits(value) else { return .refused }
                agreement.clientMaxWindowBits = bits
            default:
                return .refused
            }
        }
        if offer.noContextTakeover { agreement.clientNoContextTakeover = true }
        agreement.clientMaxWindowBits = min(agreement.clientMaxWindowBits, offer.maximumWindowBits)
        return .accepted(agreement)
    }

    private static func windowBits(_ value: String?) -> Int? {
        guard let value, ["8", "9", "10", "11", "12", "13", "14", "15"].contains(value) else { return nil }
        return Int(value)
    }
}
