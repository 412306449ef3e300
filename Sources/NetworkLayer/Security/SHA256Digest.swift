internal import CCurl
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
        var out = [UInt8](repeating: 0, count: byteCount)
        let ok = out.withUnsafeMutableBufferPointer { nl_sha256(bytes.baseAddress, bytes.count, $0.baseAddress) }
        return ok == 1 ? SHA256Digest(bytes: out) : nil
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
        var words: [UInt64] = [0, 0, 0, 0]
        for (index, byte) in bytes.enumerated() {
            words[index / 8] = words[index / 8] << 8 | UInt64(byte)
        }
        self.words = (words[0], words[1], words[2], words[3])
    }

    /// The 32 bytes.
    var bytes: [UInt8] {
        [words.0, words.1, words.2, words.3].flatMap { word in (0..<8).map { UInt8(truncatingIfNeeded: word >> (56 - 8 * $0)) } }
    }

    /// Lowercase hexadecimal, 64 characters.
    var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
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
