internal import CNetworkLayerCurl
import Foundation

/// One frame of RFC 6455 §5.2, as the decoder returns it: the payload unmasked.
struct WebSocketFrame: Sendable, Equatable {
    enum Opcode: UInt8, Sendable {
        case continuation = 0x0
        case text = 0x1
        case binary = 0x2
        case close = 0x8
        case ping = 0x9
        case pong = 0xA

        /// Close, ping and pong: at most 125 bytes, never fragmented, allowed between fragments.
        var isControl: Bool { rawValue & 0x8 != 0 }
    }

    var fin: Bool
    /// RSV1: set on the first frame of a compressed message (permessage-deflate).
    var compressed: Bool
    var opcode: Opcode
    var payload: Data
}

/// Why the peer broke the protocol, with the close code the connection closes with.
struct WebSocketProtocolError: Error, Sendable, Equatable {
    let code: WebSocketCloseCode
    let reason: String

    init(_ code: WebSocketCloseCode, _ reason: String) {
        self.code = code
        self.reason = reason
    }
}

/// Writes client frames: always masked (§5.3), each with a fresh random key.
enum WebSocketFrameEncoder {
    /// The largest header: 2 bytes, an 8-byte length, a 4-byte key.
    static let maximumHeaderSize = 14

    /// Appends one frame carrying `payload` to `output`, masked with `key`.
    static func append(_ opcode: WebSocketFrame.Opcode, fin: Bool = true, compressed: Bool = false,
                       payload: UnsafeRawBufferPointer, key: UInt32, to output: inout [UInt8]) {
        let count = payload.count
        output.reserveCapacity(output.count + maximumHeaderSize + count)
        output.append((fin ? 0x80 : 0) | (compressed ? 0x40 : 0) | opcode.rawValue)
        if count < 126 {
            output.append(0x80 | UInt8(count))
        } else if count <= 0xFFFF {
            output.append(0x80 | 126)
            output.append(UInt8(count >> 8))
            output.append(UInt8(count & 0xFF))
        } else {
            output.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { output.append(UInt8(truncatingIfNeeded: UInt64(count) >> UInt64(shift))) }
        }
        withUnsafeBytes(of: key.bigEndian) { output.append(contentsOf: $0) }
        let start = output.count
        output.append(contentsOf: payload)
        output.withUnsafeMutableBytes { bytes in
            mask(UnsafeMutableRawBufferPointer(rebasing: bytes[start...]), key: key, offset: 0)
        }
    }

    /// Appends one frame carrying `payload`, with a fresh random key.
    static func append(_ opcode: WebSocketFrame.Opcode, fin: Bool = true, compressed: Bool = false,
                       payload: some ContiguousBytes, to output: inout [UInt8]) {
        let key = UInt32.random(in: .min ... .max)
        payload.withUnsafeBytes { append(opcode, fin: fin, compressed: compressed, payload: $0, key: key, to: &output) }
    }

    /// XORs `bytes` with the key (big-endian, as sent), starting at `offset` bytes into the
    /// payload: eight bytes at a time, then the rest.
    static func mask(_ bytes: UnsafeMutableRawBufferPointer, key: UInt32, offset: Int) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        let shift = UInt32(8 * (offset & 3))
        let rotated = shift == 0 ? key : key << shift | key >> (32 - shift)
        // In memory `rotated.bigEndian` holds the key in wire order, and on a little-endian machine
        // (every one Swift on Linux runs on) so do both halves of `word`.
        let word32 = UInt64(rotated.bigEndian)
        let word = word32 | word32 << 32
        let count = bytes.count
        var index = 0
        while index + 8 <= count {
            let value = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            base.storeBytes(of: value ^ word, toByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < count {
            let keyByte = UInt8(truncatingIfNeeded: rotated >> (24 - 8 * UInt32(index & 3)))
            base.storeBytes(of: base.load(fromByteOffset: index, as: UInt8.self) ^ keyByte, toByteOffset: index, as: UInt8.self)
            index += 1
        }
    }
}

/// Masking keys from OpenSSL's CSPRNG (RFC 6455 §5.3: unpredictable), drawn 256 at a time: a
/// message costs no system call for its key.
struct WebSocketMaskingKeys {
    private var keys = [UInt32](repeating: 0, count: 256)
    private var index = 256

    mutating func next() -> UInt32 {
        if index == keys.count {
            if keys.withUnsafeMutableBytes({ nl_random_bytes($0.baseAddress, $0.count) }) != 1 {
                for slot in keys.indices { keys[slot] = UInt32.random(in: .min ... .max) }
            }
            index = 0
        }
        defer { index += 1 }
        return keys[index]
    }
}

/// Reads frames from the server's bytes as they arrive, in any pieces. Every rule of §5.2 that
/// a single frame can break is checked here, before its payload is waited for or stored.
struct WebSocketFrameDecoder {
    /// The largest payload accepted: the message limit (a frame is at most a whole message).
    let maximumPayload: Int
    /// Whether RSV1 may be set (permessage-deflate was negotiated).
    let allowsCompression: Bool
    private var buffer: [UInt8] = []
    private var start = 0

    init(maximumPayload: Int, allowsCompression: Bool) {
        self.maximumPayload = maximumPayload
        self.allowsCompression = allowsCompression
    }

    /// Bytes received and not yet part of a returned frame.
    var bufferedCount: Int { buffer.count - start }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if start > 0, start >= buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    mutating func append(_ bytes: some ContiguousBytes) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// The next complete frame, or `nil` until more bytes arrive.
    /// - Throws: the frame's violation, with its close code.
    mutating func next() throws(WebSocketProtocolError) -> WebSocketFrame? {
        let available = buffer.count - start
        guard available >= 2 else { return nil }
        let first = buffer[start], second = buffer[start + 1]
        guard first & 0x30 == 0 else {
            throw WebSocketProtocolError(.protocolError, "the server set a reserved bit (RSV2 or RSV3) no extension defines")
        }
        let compressed = first & 0x40 != 0
        guard let opcode = WebSocketFrame.Opcode(rawValue: first & 0x0F) else {
            throw WebSocketProtocolError(.protocolError, "the server sent a frame with the reserved opcode \(first & 0x0F)")
        }
        let fin = first & 0x80 != 0
        if compressed, !allowsCompression || opcode.isControl {
            throw WebSocketProtocolError(.protocolError, "the server set RSV1 (compressed) on a \(opcode.isControl ? "control frame" : "frame") "
                                                         + (opcode.isControl ? "" : "without negotiating permessage-deflate"))
        }
        guard second & 0x80 == 0 else {
            throw WebSocketProtocolError(.protocolError, "the server masked a frame (only clients mask)")
        }
        var headerSize = 2
        var length = UInt64(second & 0x7F)
        if length == 126 {
            guard available >= 4 else { return nil }
            length = UInt64(buffer[start + 2]) << 8 | UInt64(buffer[start + 3])
            headerSize = 4
        } else if length == 127 {
            guard available >= 10 else { return nil }
            length = 0
            for index in 0..<8 { length = length << 8 | UInt64(buffer[start + 2 + index]) }
            headerSize = 10
        }
        if opcode.isControl {
            guard fin else { throw WebSocketProtocolError(.protocolError, "the server fragmented a control frame") }
            guard length <= 125 else {
                throw WebSocketProtocolError(.protocolError, "the server sent a control frame of \(length) bytes (at most 125)")
            }
        }
        guard length <= UInt64(maximumPayload) else {
            throw WebSocketProtocolError(.messageTooBig, "the server announced a frame of \(length) bytes, over the limit of \(maximumPayload)")
        }
        let size = Int(length)
        guard available - headerSize >= size else {
            buffer.reserveCapacity(start + headerSize + size)
            return nil
        }
        let payloadStart = start + headerSize
        let payload = buffer.withUnsafeBytes { Data(UnsafeRawBufferPointer(rebasing: $0[payloadStart..<payloadStart + size])) }
        start = payloadStart + size
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 20)
            start = 0
        }
        return WebSocketFrame(fin: fin, compressed: compressed, opcode: opcode, payload: payload)
    }
}
