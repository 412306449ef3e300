import Foundation

/// AWS Signature Version 4 over what a transfer sends, as botocore computes it (its S3 signer for
/// the service "s3": the path is not encoded again, and requests carry `X-Amz-Content-SHA256`).
/// libcurl's `CURLOPT_AWS_SIGV4` is not used: its signatures differ from botocore's for a
/// query out of order, a path or query to encode, or a body libcurl does not hold.
struct AWSSigV4: Sendable {
    let accessKeyID: String
    let secretAccessKey: String
    let sessionToken: String?
    let region: String
    let service: String

    /// `SIGNED_HEADERS_BLACKLIST` in botocore: headers a proxy or libcurl may change or drop.
    static let unsignedHeaders: Set<String> = ["expect", "transfer-encoding", "user-agent", "x-amzn-trace-id", "authorization"]
    static let unsignedPayload = "UNSIGNED-PAYLOAD"

    var problem: String? {
        func isScopePart(_ text: String) -> Bool {
            !text.isEmpty && text.utf8.count <= 64
                && text.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }
        }
        guard isScopePart(region) else {
            return "the SigV4 region \"\(HeaderFields.printable(region))\" is not a region name (lowercase letters, digits and '-')"
        }
        guard isScopePart(service) else {
            return "the SigV4 service \"\(HeaderFields.printable(service))\" is not a service name (lowercase letters, digits and '-')"
        }
        guard !accessKeyID.isEmpty, accessKeyID.utf8.count <= 128,
              accessKeyID.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: ",") }) else {
            return "the SigV4 access key ID is empty, too long, or holds a character an access key cannot ('/', ',', a space or control)"
        }
        guard !secretAccessKey.isEmpty, secretAccessKey.utf8.count <= 4096,
              !secretAccessKey.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            return "the SigV4 secret access key is empty, longer than 4096 bytes, or holds a control character"
        }
        if let sessionToken, sessionToken.isEmpty || sessionToken.utf8.count > 16384
            || sessionToken.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return "the SigV4 session token is empty, longer than 16 KB, or holds a control character"
        }
        return nil
    }

    /// The headers that sign a request: `X-Amz-Date`, `X-Amz-Security-Token` with temporary
    /// credentials, `X-Amz-Content-SHA256` for S3 or an unsigned payload, and `Authorization`.
    ///
    /// - Parameters:
    ///   - headers: every header line the transfer sends, in order (`Host` added unless among them).
    ///   - payloadHash: the body's SHA-256 in hex, or `nil` for a body that is not signed.
    ///   - sendsPathAsIs: whether libcurl sends the path with its dot segments (S3 signs the path it receives).
    func headers(method: String, urlText: String, headers: [(name: String, value: String)], payloadHash: String?,
                 date: Date = Date(), sendsPathAsIs: Bool = false) -> [(name: String, value: String)] {
        let (stamp, day) = Self.timestamps(date)
        let payload = payloadHash ?? Self.unsignedPayload
        var added: [(name: String, value: String)] = [("X-Amz-Date", stamp)]
        if let sessionToken { added.append(("X-Amz-Security-Token", sessionToken)) }
        if service == "s3" || payloadHash == nil { added.append(("X-Amz-Content-SHA256", payload)) }

        let parts = Self.split(urlText)
        var signed: [String: [String]] = [:]
        for header in headers + added {
            let name = header.name.lowercased()
            guard !Self.unsignedHeaders.contains(name) else { continue }
            signed[name, default: []].append(Self.canonicalValue(header.value))
        }
        if signed["host"] == nil { signed["host"] = [parts.host] }
        let names = signed.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        let signedNames = names.joined(separator: ";")
        let canonicalHeaders = names.map { "\($0):\(signed[$0, default: []].joined(separator: ","))\n" }.joined()
        let path = service == "s3" ? (sendsPathAsIs ? parts.path : Self.removingDotSegments(parts.path, collapsing: false))
            : Self.encoded(Self.removingDotSegments(parts.path, collapsing: true))
        let canonicalRequest = [method.uppercased(), path, Self.canonicalQuery(parts.query), canonicalHeaders, signedNames, payload]
            .joined(separator: "\n")
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = ["AWS4-HMAC-SHA256", stamp, scope, AWSSigV4.hexDigest(Array(canonicalRequest.utf8))].joined(separator: "\n")
        let key = SigningKeys.shared.key(for: self, day: day) {
            var key = AWSSigV4.mac(key: Array("AWS4\(secretAccessKey)".utf8), message: Array(day.utf8))
            for part in [region, service, "aws4_request"] { key = AWSSigV4.mac(key: key, message: Array(part.utf8)) }
            return key
        }
        let signature = Signing.hex(AWSSigV4.mac(key: key, message: Array(stringToSign.utf8)))
        added.append(("Authorization", "AWS4-HMAC-SHA256 Credential=\(accessKeyID)/\(scope), SignedHeaders=\(signedNames), Signature=\(signature)"))
        return added
    }

    /// A header value as botocore signs it: its words joined by single spaces. A value of printable
    /// ASCII words already so joined (most are) is returned as it is, without a walk by `Character`.
    static func canonicalValue(_ value: String) -> String {
        var previous = UInt8(ascii: " ")
        let isCanonical = value.utf8.allSatisfy { byte in
            defer { previous = byte }
            return byte > 0x20 && byte < 0x7F || byte == 0x20 && previous != 0x20
        }
        if isCanonical, previous != 0x20 { return value }
        return value.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// `20260102T030405Z` and `20260102`, in UTC.
    static func timestamps(_ date: Date) -> (stamp: String, day: String) {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let day = "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))"
        return ("\(day)T\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z", day)
    }

    /// The `Host` libcurl sends, the raw path (`/` when empty) and the raw query of a URL's text,
    /// split at its bytes as libcurl splits them.
    static func split(_ urlText: String) -> (host: String, path: String, query: String) {
        var rest = Substring(urlText)
        let isHTTPS = rest.utf8.prefix(6).elementsEqualIgnoringASCIICase("https:".utf8)
        if let range = rest.utf8.firstByteRange(of: "://".utf8) { rest = rest[range.upperBound...] }
        if let hash = rest.utf8.firstIndex(of: UInt8(ascii: "#")) { rest = rest[..<hash] }
        let authorityEnd = rest.utf8.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        if let at = authority.utf8.lastIndex(of: UInt8(ascii: "@")) { authority = authority[authority.utf8.index(after: at)...] }
        let defaultPort = isHTTPS ? ":443" : ":80"
        if authority.hasSuffix(defaultPort) { authority = authority.dropLast(defaultPort.count) }
        let target = rest[authorityEnd...]
        let question = target.utf8.firstIndex(of: UInt8(ascii: "?"))
        let path = question.map { target[..<$0] } ?? target
        let query = question.map { target[target.utf8.index(after: $0)...] } ?? ""
        return (String(authority), path.isEmpty ? "/" : String(path), String(query))
    }

    /// botocore's dot-segment removal (which also drops empty segments, for services other than S3)
    /// or libcurl's (which keeps them): the path as the server receives it.
    static func removingDotSegments(_ path: String, collapsing: Bool) -> String {
        guard path.utf8.firstByteRange(of: "/.".utf8) != nil || (collapsing && path.utf8.firstByteRange(of: "//".utf8) != nil) else { return path }
        var output: [Substring] = []
        for segment in path.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            if segment == "." { continue }
            if segment == ".." {
                if !output.isEmpty { output.removeLast() }
                continue
            }
            if collapsing, segment.isEmpty { continue }
            output.append(segment)
        }
        var result = "/" + output.joined(separator: "/")
        if collapsing, path.hasSuffix("/"), !output.isEmpty { result += "/" }
        if !collapsing, path.hasSuffix("/."), !result.hasSuffix("/") { result += "/" }
        return result
    }

    /// Python's `quote(path, safe='/~')`: every byte but letters, digits, `_.-~` and `/` as `%XX`.
    static func encoded(_ path: String) -> String {
        var output = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                output += "%" + Signing.hex([byte]).uppercased()
            }
        }
        return output
    }

    /// The query's `name=value` pairs as written, sorted by name then value (botocore's order).
    static func canonicalQuery(_ query: String) -> String {
        guard !query.isEmpty else { return "" }
        let pairs = query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> (Array<UInt8>, Array<UInt8>) in
            let equals = pair.firstIndex(of: "=")
            return (Array((equals.map { pair[..<$0] } ?? pair).utf8), Array((equals.map { pair[pair.index(after: $0)...] } ?? "").utf8))
        }
        return pairs.sorted { $0.0 == $1.0 ? $0.1.lexicographicallyPrecedes($1.1) : $0.0.lexicographicallyPrecedes($1.0) }
            .map { String(decoding: $0.0, as: UTF8.self) + "=" + String(decoding: $0.1, as: UTF8.self) }
            .joined(separator: "&")
    }
}

extension AWSSigV4 {
    /// HMAC-SHA256 by OpenSSL; empty if OpenSSL fails, which makes a signature the server refuses.
    static func mac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        (try? Signing.hmacSHA256(key: key, message: message)).map(Array.init) ?? []
    }

    static func hexDigest(_ bytes: [UInt8]) -> String {
        SHA256Digest.of(bytes)?.hex ?? ""
    }

    static func date(stamp: String) -> Date? {
        let digits = Array(stamp.utf8)
        guard digits.count == 16, digits[8] == UInt8(ascii: "T"), digits[15] == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int32? {
            var value: Int32 = 0
            for digit in digits[range] {
                guard digit >= 0x30, digit <= 0x39 else { return nil }
                value = value * 10 + Int32(digit - 0x30)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8),
              let hour = number(9..<11), let minute = number(11..<13), let second = number(13..<15) else { return nil }
        var parts = tm()
        (parts.tm_year, parts.tm_mon, parts.tm_mday) = (year - 1900, month - 1, day)
        (parts.tm_hour, parts.tm_min, parts.tm_sec) = (hour, minute, second)
        let date = Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
        return timestamps(date).stamp == stamp ? date : nil  // out-of-range fields normalised to another instant
    }
}

extension PreparedRequest {
    /// This hop without the SigV4 headers `signer` put on it (``SigningStep``), and when it signed;
    /// `nil` when its `Authorization` is not `signer`'s (none, or the request's own).
    func withoutSignature(of signer: AWSSigV4) -> (request: PreparedRequest, date: Date)? {
        guard let authorization = headers.value(for: "Authorization"),
              authorization.hasPrefix("AWS4-HMAC-SHA256 Credential=\(signer.accessKeyID)/"),
              let date = headers.value(for: "X-Amz-Date").flatMap(AWSSigV4.date(stamp:)) else { return nil }
        let unsigned = headers.filter { header in
            let name = header.name.lowercased()
            switch name {
            case "authorization", "x-amz-date": return false
            case "x-amz-security-token": return signer.sessionToken == nil
            case "x-amz-content-sha256": return signer.service != "s3" && header.value != AWSSigV4.unsignedPayload
            default: return true
            }
        }
        let request = PreparedRequest(method: method, urlText: urlText, headers: unsigned, body: body, timeout: timeout,
                                      resolved: resolved, secrets: secrets, adaptedHeaderNames: adaptedHeaderNames,
                                      redirectedFrom: redirectedFrom, isAtProviderOrigin: isAtProviderOrigin)
        request.shareParsedURL(of: self)
        return (request, date)
    }
}

/// The signing keys of the last few credentials and days, process-wide: a provider's
/// `authentication` is often a computed property, a new signer per request, and deriving a key is
/// four HMACs. A key is found only for the same access key, secret, region, service and day.
final class SigningKeys: Sendable {
    static let shared = SigningKeys()
    private typealias Entry = (accessKeyID: String, secretAccessKey: String, region: String, service: String, day: String, key: [UInt8])
    private let recent = Protected<[Entry]>([])

    func key(for signer: AWSSigV4, day: String, derive: () -> [UInt8]) -> [UInt8] {
        let found = recent.withLock { recent in
            recent.first {
                $0.day == day && $0.accessKeyID == signer.accessKeyID && $0.region == signer.region
                    && $0.service == signer.service && $0.secretAccessKey == signer.secretAccessKey
            }?.key
        }
        if let found { return found }
        let key = derive()
        guard !key.isEmpty else { return key }  // HMAC failed: nothing to keep
        recent.withLock { recent in
            if recent.count >= 8 { recent.removeFirst() }
            recent.append((signer.accessKeyID, signer.secretAccessKey, signer.region, signer.service, day, key))
        }
        return key
    }
}
