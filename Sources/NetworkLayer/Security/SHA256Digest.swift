internal import CNetworkLayerCurl
import Foundation

/// A SHA-256 digest, computed by OpenSSL: what the response cache keys its entries by (so a
/// URL, a credential or a header value never appears in a cache file) and checks them with.
struct SHA256Digest: Hashable, Sendable, CustomStringConvertible {
    /// The 32 bytes as four big-endian words: cheap to hash and compare.
    private let words: (UInt64, UInt64, UInt64, UInt64)

    static let byteCount = 32

    /// The digest of `bytes`, or `nil` when OpenSSL fails (never silently a zero digest, which
    /// would make every key equal).
    static func of(_ bytes: UnsafeRawBufferPointer) -> SHA256Digest? {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: byteCount) { out -> SHA256Digest? in
            guard nl_sha256(bytes.baseAddress, bytes.count, out.baseAddress) == 1 else { return nil }
            return SHA256Digest(digest: UnsafeRawBufferPointer(out))
        }
    }

    /// The digest in `raw`, which holds at least 32 bytes (the first 32 are read).
    init(digest raw: UnsafeRawBufferPointer) {
        func word(_ index: Int) -> UInt64 { UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 8 * index, as: UInt64.self)) }
        words = (word(0), word(1), word(2), word(3))
    }

    static func of(_ bytes: [UInt8]) -> SHA256Digest? {
        bytes.withUnsafeBytes { of($0) }
    }

    static func of(_ data: Data) -> SHA256Digest? {
        data.withUnsafeBytes { of($0) }
    }

    /// A digest read back from 32 bytes (a cache file); `nil` for any other count.
    init?(bytes: some Collection<UInt8>) {
        guard bytes.count == Self.byteCount else { return nil }
        self = Array(bytes).withUnsafeBytes { SHA256Digest(digest: $0) }
    }

    var bytes: [UInt8] {
        var bytes: [UInt8] = []
        append(to: &bytes)
        return bytes
    }

    /// Appends the 32 bytes to `array` (no array of its own in between).
    func append(to array: inout [UInt8]) {
        var bigEndian = (words.0.bigEndian, words.1.bigEndian, words.2.bigEndian, words.3.bigEndian)
        withUnsafeBytes(of: &bigEndian) { array.append(contentsOf: $0) }
    }

    /// Lowercase hexadecimal, 64 characters.
    var hex: String {
        let digits: StaticString = "0123456789abcdef"
        let words = [self.words.0, self.words.1, self.words.2, self.words.3]
        return String(unsafeUninitializedCapacity: 64) { buffer in
            var index = 0
            for word in words {
                for shift in stride(from: 60, through: 0, by: -4) {
                    buffer[index] = digits.utf8Start[Int((word >> UInt64(shift)) & 0xF)]
                    index += 1
                }
            }
            return 64
        }
    }

    var description: String { hex }

    static func == (lhs: SHA256Digest, rhs: SHA256Digest) -> Bool {
        lhs.words == rhs.words
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
    }
}
