import Foundation

/// How stored responses are keyed: by digests, so that no URL, credential or header value is ever
/// kept in a cache file in the clear.
///
/// - The URL key is the SHA-256 of the request URL without its fragment.
/// - The partition is the SHA-256 of the request's headers that identify the caller
///   (``CacheRequest/ownerHeaderNames``): a response fetched with one user's token never answers
///   another user's request, or a request after signing out.
/// - The variant key hashes the URL key, the partition and the normalised values of the headers
///   `Vary` names (RFC 9111 section 4.1).
enum CacheKeys {
    static func url(_ keyURL: String) -> SHA256Digest? {
        var bytes = Array("nl-cache-url\u{0}".utf8)
        bytes += keyURL.utf8
        return SHA256Digest.of(bytes)
    }

    static func partition(of request: CacheRequest) -> SHA256Digest? {
        let ownerNames = request.ownerHeaderNames
        var pairs: [(String, String)] = []
        for line in request.headers {
            if line.name.equalsIgnoringASCIICase("authorization") {
                if request.keysAuthorization { pairs.append(("authorization", line.value)) }
            } else if !ownerNames.isEmpty, case let name = SecretNames.folded(line.name), ownerNames.contains(name) {
                pairs.append((name, line.value))
            }
        }
        if let caller = request.caller { pairs.append(("\u{0}caller", caller)) }
        guard !pairs.isEmpty else { return noCredentials }
        pairs.sort { $0.0 < $1.0 || ($0.0 == $1.0 && $0.1 < $1.1) }
        var bytes = Array("nl-cache-partition\u{0}".utf8)
        for (name, value) in pairs {
            append(name, to: &bytes)
            append(value, to: &bytes)
        }
        return SHA256Digest.of(bytes)
    }

    private static let variantPrefix = Array("nl-cache-variant\u{0}".utf8)

    static let noCredentials = SHA256Digest.of(Array("nl-cache-partition\u{0}".utf8))

    /// The variant key of a request for a response whose `Vary` names `varyNames` (normalised).
    static func variant(urlKey: SHA256Digest, partition: SHA256Digest, varyNames: [String],
                        headers: CacheHeaderLines) -> SHA256Digest? {
        var bytes = variantPrefix
        bytes.reserveCapacity(bytes.count + 2 * SHA256Digest.byteCount + varyNames.count * 64)
        urlKey.append(to: &bytes)
        partition.append(to: &bytes)
        for name in varyNames {
            append(name, to: &bytes)
            if let value = CacheVary.selectingValue(of: name, in: headers) {
                bytes.append(1)
                append(value, to: &bytes)
            } else {
                // Absent: matches only another request where it is absent too.
                bytes.append(0)
            }
        }
        return SHA256Digest.of(bytes)
    }

    /// A length-prefixed text, so that no two different sequences of texts give the same bytes.
    private static func append(_ text: String, to bytes: inout [UInt8]) {
        let count = UInt64(text.utf8.count)
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: count >> UInt64(shift))) }
        bytes += text.utf8
    }
}

/// The `Vary` response header (RFC 9111 section 4.1): which request headers select a stored response.
enum CacheVary {
    enum Names: Equatable, Sendable {
        /// The selecting header names: lowercased, sorted, without duplicates (empty: no `Vary`).
        case names([String])
        /// `*` is a member: the response never matches a later request, so it is not stored.
        case star
        /// More or longer names than ``maximumNames`` and ``maximumNameLength`` allow, or a member
        /// that is not a header name: not stored.
        case unusable
    }

    static let maximumNames = 32
    static let maximumNameLength = 128

    static func names(_ lines: [String]) -> Names {
        var names = Set<String>()
        var total = 0
        for line in lines {
            total += line.utf8.count
            // A field this long names far more headers than allowed: refused before it is split.
            if total > (maximumNames + 1) * (maximumNameLength + 2) { return .unusable }
            for member in line.split(separator: ",", omittingEmptySubsequences: false) {
                let name = member.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
                if name.isEmpty { continue }
                if name == "*" { return .star }
                guard name.utf8.count <= maximumNameLength, name.utf8.allSatisfy(CacheControl.isTokenByte) else { return .unusable }
                names.insert(SecretNames.folded(name))
                if names.count > maximumNames { return .unusable }
            }
        }
        return .names(names.sorted())
    }

    /// The request's value of a selecting header, normalised as the field syntax allows (RFC 9111
    /// section 4.1): members trimmed, inner white space collapsed outside quoted strings, joined by
    /// `,`. `nil` when absent. The lines are joined before they are split (RFC 9110 section 5.3), so a
    /// quoted string left open goes on into the next line; split line by line, two different values
    /// could normalise alike.
    static func selectingValue(of name: String, in headers: CacheHeaderLines) -> String? {
        let lines = headers.values(named: name)
        guard !lines.isEmpty else { return nil }
        return listMembers(Array(lines.joined(separator: ",").utf8))
            .map { String(decoding: $0, as: UTF8.self) }.joined(separator: ",")
    }

    /// The members of a field line split at commas outside quoted strings, normalised; empty ones dropped.
    private static func listMembers(_ bytes: [UInt8]) -> [[UInt8]] {
        var members: [[UInt8]] = []
        var current: [UInt8] = []
        var inQuotes = false
        var escaped = false
        var pendingSpace = false
        func finish() {
            if !current.isEmpty { members.append(current) }
            current = []
            pendingSpace = false
        }
        for byte in bytes {
            if inQuotes {
                current.append(byte)
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inQuotes = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: ","):
                finish()
            case UInt8(ascii: " "), UInt8(ascii: "\t"):
                if !current.isEmpty { pendingSpace = true }
            default:
                if pendingSpace {
                    current.append(UInt8(ascii: " "))
                    pendingSpace = false
                }
                current.append(byte)
                if byte == UInt8(ascii: "\"") { inQuotes = true }
            }
        }
        finish()
        return members
    }
}
