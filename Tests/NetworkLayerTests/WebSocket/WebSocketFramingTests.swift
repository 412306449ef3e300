import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// RFC 6455 §5 framing, without a network: what the encoder writes, what the decoder and the
/// message reader accept, and the close code of everything they refuse.
@Suite("WebSocket framing", .sharing)
struct WebSocketFramingTests {
    /// A server frame (unmasked) as raw bytes.
    static func serverFrame(_ opcode: UInt8, fin: Bool = true, rsv: UInt8 = 0, payload: [UInt8] = [], masked: Bool = false,
                            announcedLength: UInt64? = nil) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | rsv << 4 | opcode]
        let length = announcedLength ?? UInt64(payload.count)
        let maskBit: UInt8 = masked ? 0x80 : 0
        if length < 126 {
            bytes.append(maskBit | UInt8(length))
        } else if length <= 0xFFFF {
            bytes += [maskBit | 126, UInt8(length >> 8), UInt8(length & 0xFF)]
        } else {
            bytes.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: length >> UInt64(shift))) }
        }
        if masked { bytes += [1, 2, 3, 4] }
        return bytes + payload
    }

    /// Every frame and event the bytes make, or the error that ends them.
    static func read(_ bytes: [UInt8], compression: Bool = false, limit: Int = 1 << 20,
                     piece: Int = .max) -> (events: [WebSocketMessageReader.Event], error: WebSocketProtocolError?) {
        var decoder = WebSocketFrameDecoder(maximumPayload: limit, allowsCompression: compression)
        var reader = WebSocketMessageReader(maximumMessageSize: limit,
                                            inflater: compression ? try? WebSocketInflater(noContextTakeover: false) : nil)
        var events: [WebSocketMessageReader.Event] = []
        var offset = 0
        do {
            repeat {
                let end = min(bytes.count, offset + piece)
                decoder.append(Array(bytes[offset..<end]))
                offset = end
                while let frame = try decoder.next() {
                    if let event = try reader.receive(frame) { events.append(event) }
                }
            } while offset < bytes.count
        } catch {
            return (events, error)
        }
        return (events, nil)
    }

    /// Unmasks a client frame written by the encoder: (header fields, payload).
    static func parseClientFrame(_ bytes: [UInt8]) -> (fin: Bool, rsv1: Bool, opcode: UInt8, masked: Bool, payload: [UInt8], size: Int) {
        var length = Int(bytes[1] & 0x7F)
        var index = 2
        if length == 126 { length = Int(bytes[2]) << 8 | Int(bytes[3]); index = 4 }
        else if length == 127 { length = bytes[2..<10].reduce(0) { $0 << 8 | Int($1) }; index = 10 }
        let key = Array(bytes[index..<index + 4])
        index += 4
        let payload = (0..<length).map { bytes[index + $0] ^ key[$0 & 3] }
        return (bytes[0] & 0x80 != 0, bytes[0] & 0x40 != 0, bytes[0] & 0x0F, bytes[1] & 0x80 != 0, payload, index + length)
    }

    @Test("Client frames are masked, with every length form: 0, 125, 126, 65535, 65536 bytes", arguments: [0, 1, 7, 125, 126, 127, 65535, 65536, 70001])
    func encodesEveryLength(count: Int) {
        let payload = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var output: [UInt8] = []
        WebSocketFrameEncoder.append(.binary, payload: payload, to: &output)
        let frame = Self.parseClientFrame(output)
        #expect(frame.masked)
        #expect(frame.fin && !frame.rsv1 && frame.opcode == 2)
        #expect(frame.payload == payload)
        #expect(frame.size == output.count)
        let headerSize = count < 126 ? 6 : count <= 65535 ? 8 : 14
        #expect(output.count == headerSize + count)
    }

    @Test("Each frame gets a fresh masking key")
    func freshKeys() {
        var keys = Set<[UInt8]>()
        for _ in 0..<64 {
            var output: [UInt8] = []
            WebSocketFrameEncoder.append(.text, payload: Array("hi".utf8), to: &output)
            keys.insert(Array(output[2..<6]))
        }
        #expect(keys.count > 60)
    }

    @Test("The keys a message's frames are masked with stay fresh across the batches they are drawn in")
    func maskingKeysAcrossBatches() {
        var source = WebSocketMaskingKeys()
        let keys = (0..<1000).map { _ in source.next() }
        // 32-bit keys from a CSPRNG: two of 1000 (four batches) are equal with a chance of about 1 in 10,000;
        // a batch drawn again, or left zeroed, would repeat hundreds.
        #expect(Set(keys).count >= 999)
    }

    @Test("Masking at any offset equals masking byte by byte")
    func maskingOffsets() {
        let key: UInt32 = 0xA1B2_C3D4
        let keyBytes: [UInt8] = [0xA1, 0xB2, 0xC3, 0xD4]
        for offset in 0..<4 {
            for count in [0, 1, 5, 8, 9, 17, 64] {
                var bytes = (0..<count).map { UInt8($0) }
                bytes.withUnsafeMutableBytes { WebSocketFrameEncoder.mask($0, key: key, offset: offset) }
                #expect(bytes == (0..<count).map { UInt8($0) ^ keyBytes[($0 + offset) & 3] })
            }
        }
    }

    @Test("Frames of every length form decode, whole or a byte at a time", arguments: [1, 3, .max])
    func decodesLengths(piece: Int) {
        var bytes: [UInt8] = []
        let sizes = [0, 125, 126, 65535, 65536]
        for size in sizes { bytes += Self.serverFrame(2, payload: [UInt8](repeating: 7, count: size)) }
        let (events, error) = Self.read(bytes, piece: piece == 1 ? 997 : piece)
        #expect(error == nil)
        #expect(events == sizes.map { .message(.binary(Data(repeating: 7, count: $0))) })
    }

    @Test("Fragments join into one message, with control frames between them")
    func fragments() {
        let bytes = Self.serverFrame(1, fin: false, payload: Array("Hel".utf8))
            + Self.serverFrame(9, payload: Array("p".utf8))
            + Self.serverFrame(0, fin: false, payload: Array("lo, ".utf8))
            + Self.serverFrame(10, payload: [])
            + Self.serverFrame(0, fin: true, payload: Array("wörld".utf8))
        let (events, error) = Self.read(bytes, piece: 1)
        #expect(error == nil)
        #expect(events == [.ping(Data("p".utf8)), .pong(Data()), .message(.text("Hello, wörld"))])
    }

    @Test("UTF-8 split across fragments is accepted; invalid UTF-8 is refused with 1007 in the fragment it appears")
    func utf8AcrossFragments() {
        let euro: [UInt8] = [0xE2, 0x82, 0xAC]
        let split = Self.serverFrame(1, fin: false, payload: [euro[0]]) + Self.serverFrame(0, fin: false, payload: [euro[1]])
            + Self.serverFrame(0, payload: [euro[2]])
        #expect(Self.read(split).events == [.message(.text("€"))])
        // The bad byte in the first fragment: refused before the message ends.
        let bad = Self.serverFrame(1, fin: false, payload: [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5, 0xED, 0xA0, 0x80])
        #expect(Self.read(bad).error?.code == .invalidFramePayloadData)
        // A message ending inside a sequence.
        #expect(Self.read(Self.serverFrame(1, payload: [0x61, 0xE2, 0x82])).error?.code == .invalidFramePayloadData)
        // Overlong, surrogate, above U+10FFFF, lone continuation.
        for invalid: [UInt8] in [[0xC0, 0x80], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0x80], [0xFF]] {
            #expect(Self.read(Self.serverFrame(1, payload: invalid)).error?.code == .invalidFramePayloadData, "\(invalid)")
        }
        // Binary is never checked.
        #expect(Self.read(Self.serverFrame(2, payload: [0xFF])).error == nil)
    }

    @Test("The UTF-8 validator agrees with Foundation on random byte strings")
    func utf8AgreesWithFoundation() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [UInt8] = [0x41, 0x7F, 0x80, 0xBF, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xA0, 0x9F, 0x90, 0x8F]
        for _ in 0..<20_000 {
            let bytes = (0..<Int.random(in: 0...6, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
            var validator = UTF8Validator()
            let valid = validator.validate(bytes) && validator.isComplete
            #expect(valid == (String(validating: bytes, as: UTF8.self) != nil), "\(bytes)")
        }
    }

    @Test("Bad frames close with the RFC's code", arguments: [
        ("a reserved bit without an extension", serverFrame(1, rsv: 0b010, payload: [0x61]), WebSocketCloseCode.protocolError),
        ("RSV3", serverFrame(2, rsv: 0b001), .protocolError),
        ("RSV1 without permessage-deflate", serverFrame(1, rsv: 0b100, payload: [0x61]), .protocolError),
        ("reserved opcode 3", serverFrame(3), .protocolError),
        ("reserved opcode 11", serverFrame(11), .protocolError),
        ("a masked frame", serverFrame(1, payload: [1, 2], masked: true), .protocolError),
        ("a fragmented ping", serverFrame(9, fin: false), .protocolError),
        ("a ping of 126 bytes", serverFrame(9, payload: [UInt8](repeating: 0, count: 126)), .protocolError),
        ("a continuation with nothing to continue", serverFrame(0, payload: [0x61]), .protocolError),
        ("a new message inside a fragmented one", serverFrame(1, fin: false, payload: [0x61]) + serverFrame(1, payload: [0x61]), .protocolError),
        ("a length of 2^63", serverFrame(2, announcedLength: 1 << 63), .messageTooBig),
        ("a length of 2^64 - 1", serverFrame(2, announcedLength: .max), .messageTooBig),
        ("a frame over the limit", serverFrame(2, announcedLength: (1 << 20) + 1), .messageTooBig),
        ("fragments over the limit", serverFrame(2, fin: false, payload: [UInt8](repeating: 0, count: 1 << 19))
            + serverFrame(0, fin: false, payload: [UInt8](repeating: 0, count: 1 << 19)) + serverFrame(0, payload: [0]), .messageTooBig),
        ("a close frame of 1 byte", serverFrame(8, payload: [3]), .protocolError),
        ("a close reason that is not UTF-8", serverFrame(8, payload: [3, 232, 0xFF]), .invalidFramePayloadData),
    ] as [(String, [UInt8], WebSocketCloseCode)])
    func badFrames(_ name: String, _ bytes: [UInt8], _ code: WebSocketCloseCode) {
        let (events, error) = Self.read(bytes)
        #expect(events.isEmpty)
        #expect(error?.code == code, "\(name): \(String(describing: error))")
    }

    @Test("Close codes: 1004, 1005, 1006, 1015, 999, 1016, 2999 and 5000 on the wire are protocol errors; 1000–1003, 1007–1014 and 3000–4999 are accepted")
    func closeCodes() {
        for code in [0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535] {
            let frame = Self.serverFrame(8, payload: [UInt8(code >> 8), UInt8(code & 0xFF)])
            #expect(Self.read(frame).error?.code == .protocolError, "\(code)")
        }
        for code in [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999, 4000, 4999] {
            let frame = Self.serverFrame(8, payload: [UInt8(code >> 8), UInt8(code & 0xFF)] + Array("bye".utf8))
            #expect(Self.read(frame).events == [.close(WebSocketCloseCode(rawValue: UInt16(code)), "bye")], "\(code)")
        }
        #expect(Self.read(Self.serverFrame(8)).events == [.close(.noStatusReceived, "")])
    }

    @Test("A compressed message inflates, also across fragments; one that inflates past the limit is refused with 1009")
    func compressedMessages() throws {
        guard let deflater = WebSocketDeflater(PerMessageDeflate()) else { Issue.record("no deflater"); return }
        let text = String(repeating: "Hello, permessage-deflate! ", count: 100)
        let compressed = Array(text.utf8).withUnsafeBytes { deflater.compress($0) }
        #expect(compressed.count < text.utf8.count / 5)
        let half = compressed.count / 2
        let fragmented = Self.serverFrame(1, fin: false, rsv: 0b100, payload: Array(compressed[..<half]))
            + Self.serverFrame(0, payload: Array(compressed[half...]))
        #expect(Self.read(fragmented, compression: true).events == [.message(.text(text))])
        // Context takeover: the second message refers back to the first.
        let again = Array(text.utf8).withUnsafeBytes { deflater.compress($0) }
        #expect(again.count < compressed.count)
        let both = Self.serverFrame(1, rsv: 0b100, payload: compressed) + Self.serverFrame(1, rsv: 0b100, payload: again)
        #expect(Self.read(both, compression: true).events == [.message(.text(text)), .message(.text(text))])
        // Empty messages, two in a row (the second flush has nothing to write), then text.
        let fresh = try #require(WebSocketDeflater(PerMessageDeflate()))
        let empties = ["", "", "after two empty messages"].map { text in
            Self.serverFrame(1, rsv: 0b100, payload: Array(text.utf8).withUnsafeBytes { fresh.compress($0) })
        }.joined()
        #expect(Self.read(Array(empties), compression: true).events == [.message(.text("")), .message(.text("")),
                                                                      .message(.text("after two empty messages"))])
        // 64 MB of zeros in a few kilobytes.
        let bomb = [UInt8](repeating: 0, count: 64 << 20).withUnsafeBytes { deflater.compress($0) }
        #expect(bomb.count < 100 << 10)
        let (events, error) = Self.read(Self.serverFrame(2, rsv: 0b100, payload: bomb), compression: true, limit: 1 << 20)
        #expect(events.isEmpty)
        #expect(error?.code == .messageTooBig)
        // Garbage is not DEFLATE.
        #expect(Self.read(Self.serverFrame(2, rsv: 0b100, payload: [0xFF, 0xFF, 0xFF, 0xFF]), compression: true).error?.code == .protocolError)
        // RSV1 on a continuation frame.
        let rsvOnContinuation = Self.serverFrame(2, fin: false, payload: [1]) + Self.serverFrame(0, rsv: 0b100, payload: [1])
        #expect(Self.read(rsvOnContinuation, compression: true).error?.code == .protocolError)
    }

    @Test("A handshake answer with a CR, LF or NUL in a header line is refused, a combining mark after it included")
    func handshakeLineBreaks() {
        func head(_ line: String) -> Bool {
            if case .success = WebSocketHandshake.parseHead(Array("HTTP/1.1 101 Switching Protocols\r\n\(line)\r\n\r\n".utf8)[...]) { return true }
            return false
        }
        #expect(head("Upgrade: websocket"))
        // A combining mark after the byte makes one character with it: the check must look at bytes.
        for line in ["\r\u{353}: x", "X-A: a\r\u{301}b", "X-A: a\n\u{301}b", "X-A: a\u{0}\u{301}b", "X-A: a\nb", "X-A: a\u{0}"] {
            #expect(!head(line), "\(line.debugDescription)")
        }
    }

    @Test("The server's permessage-deflate answer: parameters read, anything not offered or malformed refused")
    func negotiation() throws {
        let offer = WebSocketOptions.DeflateOffer()
        #expect(try PerMessageDeflate.accepted([], offer: offer) == nil)
        #expect(try PerMessageDeflate.accepted(["permessage-deflate"], offer: offer) == PerMessageDeflate())
        // Empty list elements are skipped; a quoted value is read without its quotes; names ignore case.
        #expect(try PerMessageDeflate.accepted([" , permessage-deflate ; Client_Max_Window_Bits=\"10\" ,", ""], offer: offer)
                == PerMessageDeflate(clientMaxWindowBits: 10))
        let full = try PerMessageDeflate.accepted(["permessage-deflate; server_no_context_takeover; client_no_context_takeover; client_max_window_bits=10; server_max_window_bits=12"], offer: offer)
        #expect(full == PerMessageDeflate(serverNoContextTakeover: true, clientNoContextTakeover: true, clientMaxWindowBits: 10))
        for bad in ["x-webkit-deflate-frame", "permessage-deflate; foo", "permessage-deflate; client_max_window_bits=16",
                    "permessage-deflate; server_max_window_bits=7", "permessage-deflate; server_max_window_bits",
                    "permessage-deflate; server_no_context_takeover; server_no_context_takeover",
                    "permessage-deflate, permessage-deflate", "permessage-deflate; server_no_context_takeover=1",
                    // An empty parameter (it must not trap: it indexes nothing) and
                    // values RFC 7692 §7.1.2 does not allow (1*DIGIT, no leading zero).
                    "permessage-deflate; ;server_no_context_takeover", "permessage-deflate;\t;", "permessage-deflate; =",
                    "permessage-deflate;;server_no_context_takeover", "permessage-deflate;", "permessage-deflate; server_no_context_takeover=",
                    "permessage-deflate; client_max_window_bits=+9", "permessage-deflate; client_max_window_bits=09",
                    "permessage-deflate; client_max_window_bits=\"10", "permessage-deflate; client_max_window_bits="] {
            #expect(throws: WebSocketProtocolError.self, "\(bad)") { try PerMessageDeflate.accepted([bad], offer: offer) }
        }
        #expect(throws: WebSocketProtocolError.self) { try PerMessageDeflate.accepted(["permessage-deflate"], offer: nil) }
        // A window of 8 bits: zlib cannot deflate raw with it, so messages go uncompressed.
        #expect(WebSocketDeflater(PerMessageDeflate(clientMaxWindowBits: 8)) == nil)
        #expect(WebSocketDeflater(PerMessageDeflate(clientMaxWindowBits: 9)) != nil)
    }
}
