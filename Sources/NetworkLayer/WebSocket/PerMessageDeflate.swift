internal import CNetworkLayerZlib
import Foundation

/// The `permessage-deflate` extension (RFC 7692) as the server accepted it.
struct PerMessageDeflate: Sendable, Equatable {
    /// The server compresses each message on its own: our inflater resets after each.
    var serverNoContextTakeover = false
    /// We must compress each message on its own: our deflater resets after each.
    var clientNoContextTakeover = false
    /// The window our deflater may use (8…15); 8, which zlib cannot produce for raw DEFLATE,
    /// makes us send uncompressed messages (allowed: compression is per message).
    var clientMaxWindowBits = 15

    /// The `Sec-WebSocket-Extensions` offer for `offer`.
    static func header(offering offer: WebSocketOptions.DeflateOffer) -> String {
        var header = "permessage-deflate; client_max_window_bits"
        if offer.maximumWindowBits < 15 {
            header = "permessage-deflate; client_max_window_bits=\(offer.maximumWindowBits); server_max_window_bits=\(offer.maximumWindowBits)"
        }
        if offer.noContextTakeover { header += "; client_no_context_takeover; server_no_context_takeover" }
        return header
    }

    /// The extension the server's `Sec-WebSocket-Extensions` lines accept, `nil` for none.
    /// - Throws: a description of what is wrong (an extension not offered, a parameter unknown,
    ///   repeated or out of range).
    static func accepted(_ lines: [String], offer: WebSocketOptions.DeflateOffer?) throws(WebSocketProtocolError) -> PerMessageDeflate? {
        let extensions = lines.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !extensions.isEmpty else { return nil }
        guard extensions.count == 1 else {
            throw WebSocketProtocolError(.protocolError, "the server accepted \(extensions.count) extensions; one (permessage-deflate) was offered")
        }
        // An empty list element (`a, , b`) is skipped, as RFC 9110 §5.6.1 asks; an empty parameter
        // (`;;`, `; ;`, a trailing `;`) breaks RFC 7692's grammar and is refused below.
        let parts = extensions[0].split(separator: ";", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard let offer, parts.first?.lowercased() == "permessage-deflate" else {
            throw WebSocketProtocolError(.protocolError, "the server accepted an extension that was not offered: \(HeaderFields.printable(parts.first ?? ""))")
        }
        var accepted = PerMessageDeflate()
        var seen = Set<String>()
        for parameter in parts.dropFirst() {
            // An empty parameter or a bare `=` has an empty name: malformed, like any name not below.
            let pair = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            let name = pair[0].lowercased()
            let value = pair.count > 1 ? unquoted(pair[1]) : nil
            guard seen.insert(name).inserted else {
                throw WebSocketProtocolError(.protocolError, "the server repeated the permessage-deflate parameter \(HeaderFields.printable(name))")
            }
            switch (name, value) {
            case ("server_no_context_takeover", nil):
                accepted.serverNoContextTakeover = true
            case ("client_no_context_takeover", nil):
                accepted.clientNoContextTakeover = true
            case ("server_max_window_bits", let value?):
                guard let bits = windowBits(value) else { throw badBits(name, value) }
                guard offer.maximumWindowBits == 15 || bits <= offer.maximumWindowBits else { throw badBits(name, value) }
            case ("client_max_window_bits", let value?):
                guard let bits = windowBits(value) else { throw badBits(name, value) }
                accepted.clientMaxWindowBits = bits
            default:
                throw WebSocketProtocolError(.protocolError, "the server answered permessage-deflate with an unknown or malformed parameter "
                                                             + HeaderFields.printable(parameter))
            }
        }
        if offer.noContextTakeover, !accepted.serverNoContextTakeover || !accepted.clientNoContextTakeover {
            // The server may decline a hint; our deflater resets anyway when we asked.
            accepted.clientNoContextTakeover = true
        }
        if offer.maximumWindowBits < 15 { accepted.clientMaxWindowBits = min(accepted.clientMaxWindowBits, offer.maximumWindowBits) }
        return accepted
    }

    /// A window size as RFC 7692 §7.1.2 writes it: decimal digits without a leading zero, 8…15.
    private static func windowBits(_ value: String) -> Int? {
        guard value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), value.first != "0",
              let bits = Int(value), (8...15).contains(bits) else { return nil }
        return bits
    }

    /// A parameter's value without the quotes of a quoted-string; a quote left alone stays, and
    /// makes the value malformed.
    private static func unquoted(_ value: String) -> String {
        guard value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") else { return value }
        return String(value.dropFirst().dropLast())
    }

    private static func badBits(_ name: String, _ value: String) -> WebSocketProtocolError {
        WebSocketProtocolError(.protocolError, "the server answered \(name)=\(HeaderFields.printable(value)), not 8…15 within the offer")
    }
}

/// Decompresses the server's messages. One per connection; the reader thread's alone.
final class WebSocketInflater {
    private let stream: UnsafeMutablePointer<z_stream>
    private let resetsAfterMessage: Bool
    private let scratch: UnsafeMutableRawBufferPointer
    /// What RFC 7692 §7.2.2 has the receiver append to each message: the sync flush marker the
    /// sender removed.
    private static let tail: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]

    init(noContextTakeover: Bool) throws(WebSocketProtocolError) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        scratch = .allocate(byteCount: 64 << 10, alignment: 8)
        resetsAfterMessage = noContextTakeover
        // A window of 15 bits inflates what any smaller window produced; negative: raw DEFLATE, no zlib header.
        guard inflateInit2_(stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            stream.deallocate()
            scratch.deallocate()
            throw WebSocketProtocolError(.internalServerError, "zlib could not start a decompressor (out of memory)")
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
        scratch.deallocate()
    }

    /// Inflates one frame's payload of a compressed message onto `output`; `isFinal` for its
    /// last frame. Fails with 1009 as soon as the output passes `limit` bytes, or `limit`'s ratio.
    func inflate(_ input: Data, isFinal: Bool, into output: inout Data, limit: Int, ratio: DecompressionLimit,
                 compressedSoFar: Int) throws(WebSocketProtocolError) {
        try input.withUnsafeBytes(typed: { (bytes: UnsafeRawBufferPointer) throws(WebSocketProtocolError) in
            try inflate(bytes, into: &output, limit: limit, ratio: ratio, compressed: compressedSoFar + input.count)
        })
        if isFinal {
            try Self.tail.withUnsafeBytes(typed: { (bytes: UnsafeRawBufferPointer) throws(WebSocketProtocolError) in
                try inflate(bytes, into: &output, limit: limit, ratio: ratio, compressed: compressedSoFar + input.count)
            })
            if resetsAfterMessage { inflateReset(stream) }
        }
    }

    private func inflate(_ input: UnsafeRawBufferPointer, into output: inout Data, limit: Int, ratio: DecompressionLimit,
                         compressed: Int) throws(WebSocketProtocolError) {
        guard let base = input.baseAddress, !input.isEmpty else { return }
        stream.pointee.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(input.count)
        defer { stream.pointee.next_in = nil; stream.pointee.avail_in = 0 }
        while true {
            stream.pointee.next_out = scratch.baseAddress!.assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_out = uInt(scratch.count)
            let status = CNetworkLayerZlib.inflate(stream, Z_SYNC_FLUSH)
            let produced = scratch.count - Int(stream.pointee.avail_out)
            if produced > 0 {
                guard output.count + produced <= limit else {
                    throw WebSocketProtocolError(.messageTooBig, "a compressed message inflated past the limit of \(limit) bytes")
                }
                output.append(scratch.baseAddress!.assumingMemoryBound(to: UInt8.self), count: produced)
                if ratio.isExceeded(decoded: Int64(output.count), compressed: Int64(compressed)) {
                    throw WebSocketProtocolError(.messageTooBig, "a compressed message inflated past \(ratio)")
                }
            }
            switch status {
            case Z_OK, Z_BUF_ERROR:
                // Done when the input is used up and the output had room to spare.
                if stream.pointee.avail_in == 0, stream.pointee.avail_out > 0 { return }
                if status == Z_BUF_ERROR, produced == 0 { return }
            case Z_STREAM_END:
                // The server ended its DEFLATE stream (a final block): the next message starts a new one.
                inflateReset(stream)
                if stream.pointee.avail_in == 0 { return }
            default:
                inflateReset(stream)
                throw WebSocketProtocolError(.protocolError, "a compressed message is not valid DEFLATE data")
            }
        }
    }
}

/// Compresses our messages. One per connection, used under the connection's send lock.
final class WebSocketDeflater {
    private let stream: UnsafeMutablePointer<z_stream>
    private let resetsAfterMessage: Bool
    private let scratch: UnsafeMutableRawBufferPointer

    /// `nil` when `extension` makes us send uncompressed (a window of 8 bits).
    init?(_ accepted: PerMessageDeflate) {
        guard accepted.clientMaxWindowBits >= 9 else { return nil }
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        scratch = .allocate(byteCount: 64 << 10, alignment: 8)
        resetsAfterMessage = accepted.clientNoContextTakeover
        // Negative window bits: raw DEFLATE, no zlib header; memory level 8, zlib's default.
        guard deflateInit2_(stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -Int32(accepted.clientMaxWindowBits), 8,
                            Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            stream.deallocate()
            scratch.deallocate()
            return nil
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
        scratch.deallocate()
    }

    /// `payload` compressed, with the sync flush marker (00 00 FF FF) removed (§7.2.1).
    func compress(_ payload: UnsafeRawBufferPointer) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(payload.count / 2 + 64)
        stream.pointee.next_in = payload.baseAddress.map { UnsafeMutablePointer(mutating: $0.assumingMemoryBound(to: Bytef.self)) }
        stream.pointee.avail_in = uInt(payload.count)
        repeat {
            stream.pointee.next_out = scratch.baseAddress!.assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_out = uInt(scratch.count)
            _ = deflate(stream, Z_SYNC_FLUSH)  // only Z_OK or Z_BUF_ERROR with a valid stream and room
            output.append(contentsOf: UnsafeRawBufferPointer(start: scratch.baseAddress, count: scratch.count - Int(stream.pointee.avail_out)))
        } while stream.pointee.avail_out == 0
        stream.pointee.next_in = nil
        if output.count >= 4, output.suffix(4) == [0x00, 0x00, 0xFF, 0xFF] { output.removeLast(4) }
        // Nothing to flush (an empty message right after another flush) gives no bytes at all; the
        // receiver must still find a block before the marker it appends: an empty stored block (§7.2.3.6).
        if output.isEmpty { output = [0x00] }
        if resetsAfterMessage { deflateReset(stream) }
        return output
    }
}
