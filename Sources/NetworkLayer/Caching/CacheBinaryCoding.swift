import Foundation

/// Little-endian binary writing for the disk cache's files.
struct CacheBinaryWriter {
    private(set) var bytes: [UInt8] = []

    mutating func u8(_ value: UInt8) { bytes.append(value) }
    mutating func u16(_ value: UInt16) { integer(UInt64(value), count: 2) }
    mutating func u32(_ value: UInt32) { integer(UInt64(value), count: 4) }
    mutating func u64(_ value: UInt64) { integer(value, count: 8) }
    mutating func f64(_ value: Double) { u64(value.bitPattern) }
    mutating func raw(_ value: some Sequence<UInt8>) { bytes.append(contentsOf: value) }
    mutating func digest(_ value: SHA256Digest) { bytes += value.bytes }

    /// A text with a 16-bit length (cut to 65,535 bytes: names and entity-tags are far shorter).
    mutating func text16(_ value: String) {
        let utf8 = Array(value.utf8.prefix(Int(UInt16.max)))
        u16(UInt16(utf8.count))
        bytes += utf8
    }

    /// A text with a 32-bit length.
    mutating func text32(_ value: String) {
        let utf8 = Array(value.utf8)
        u32(UInt32(clamping: utf8.count))
        bytes += utf8.prefix(Int(UInt32.max))
    }

    private mutating func integer(_ value: UInt64, count: Int) {
        for index in 0..<count { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(index)))) }
    }
}

/// Little-endian binary reading with every length checked against what is left: a damaged file
/// reads as `nil`, never as a trap or an allocation of the size it claims.
struct CacheBinaryReader {
    private let bytes: UnsafeRawBufferPointer
    private(set) var position: Int

    init(_ bytes: UnsafeRawBufferPointer, from position: Int = 0) {
        self.bytes = bytes
        self.position = position
    }

    var remaining: Int { bytes.count - position }

    mutating func u8() -> UInt8? { integer(count: 1).map { UInt8($0) } }
    mutating func u16() -> UInt16? { integer(count: 2).map { UInt16($0) } }
    mutating func u32() -> UInt32? { integer(count: 4).map { UInt32($0) } }
    mutating func u64() -> UInt64? { integer(count: 8) }

    /// A finite `Double` (a damaged NaN or infinity is `nil`).
    mutating func f64() -> Double? {
        guard let bits = u64() else { return nil }
        let value = Double(bitPattern: bits)
        return value.isFinite ? value : nil
    }

    mutating func raw(_ count: Int) -> UnsafeRawBufferPointer? {
        guard count >= 0, count <= remaining else { return nil }
        defer { position += count }
        return UnsafeRawBufferPointer(rebasing: bytes[position..<position + count])
    }

    mutating func digest() -> SHA256Digest? {
        raw(SHA256Digest.byteCount).map { SHA256Digest(digest: $0) }
    }

    mutating func text16() -> String? {
        guard let count = u16(), let slice = raw(Int(count)) else { return nil }
        return String(decoding: slice, as: UTF8.self)
    }

    mutating func text32() -> String? {
        guard let count = u32(), let slice = raw(Int(count)) else { return nil }
        return String(decoding: slice, as: UTF8.self)
    }

    private mutating func integer(count: Int) -> UInt64? {
        guard count <= remaining else { return nil }
        defer { position += count }
        if count == 8 { return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self)) }
        var value: UInt64 = 0
        for index in 0..<count { value |= UInt64(bytes[position + index]) << (8 * UInt64(index)) }
        return value
    }
}
