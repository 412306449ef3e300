import Foundation

// A single pass over a JSON document that records every value in a flat array of fixed-size
// nodes (the "tape"), for `FastJSONDecoder` to walk without allocating.
//
// The scanner accepts exactly what Foundation's `JSONDecoder` (swift-foundation) accepts while it
// scans, and defers exactly what it defers:
// - Structure is checked here: brackets, braces, commas, colons, `true`/`false`/`null`, at most
//   512 nested containers, only whitespace (space, tab, CR, LF) after the top-level value, and a
//   trailing comma before `]` or `}` is allowed (Foundation allows it).
// - A number is only delimited here (a `-` or digit, then any run of `0-9 . + - e E`); its syntax
//   is checked when it is decoded, so a malformed number that is never decoded is no error.
// - A string is only delimited here (an unescaped `"` ends it; `\u` must be followed by 4 bytes
//   none of which is `"`). Its escapes, control characters and UTF-8 are checked when it is decoded.

/// One JSON value on the tape: 12 bytes.
///
/// - string and number: `a` is the byte offset of the first content byte (after the opening
///   quote for strings), `b` the byte length (without quotes).
/// - array and object: `a` is the element count (key-value pairs for an object), `b` the tape
///   index just past the container's last node, so a container is skipped in one step. An
///   object's nodes are key, value, key, value…; an array's are its elements.
/// - null, false, true: `a` and `b` are unused.
struct JSONNode {
    var header: UInt32
    var a: UInt32
    var b: UInt32

    @inline(__always) var kind: JSONNodeKind { JSONNodeKind(rawValue: header & 0xF).unsafelyUnwrapped }
    @inline(__always) var isContainer: Bool { header & 0xF >= JSONNodeKind.array.rawValue }
    @inline(__always) func has(_ flag: UInt32) -> Bool { header & flag != 0 }

    /// A string holding a backslash or a raw control character: Foundation's "non-simple" string.
    static let escaped: UInt32 = 1 << 4
    /// A string holding a byte ≥ 0x80.
    static let nonASCII: UInt32 = 1 << 5
    /// An object with at least one key that is escaped or non-ASCII (so keys cannot be compared as raw bytes).
    static let complexKeys: UInt32 = 1 << 6
}

enum JSONNodeKind: UInt32 {
    case null = 0, `false`, `true`, number, string, array, object

    /// Foundation's wording for a value's type in `typeMismatch` descriptions.
    var foundationDescription: String {
        switch self {
        case .string: "a string"
        case .number: "number"
        case .true, .false: "bool"
        case .null: "null"
        case .object: "a dictionary"
        case .array: "an array"
        }
    }
}

/// A scanned document: a private copy of the bytes (followed by zero padding) and the tape. It owns
/// both buffers, so decoders and containers that escape a `decode` call stay valid.
final class JSONDocument {
    /// The document's bytes, followed by `JSONDocument.padding` zero bytes.
    let bytes: UnsafeMutablePointer<UInt8>
    let byteCount: Int
    private(set) var nodes: UnsafeMutablePointer<JSONNode>
    private(set) var nodeCount = 0
    private var nodeCapacity: Int
    /// A `null` node after the document's own nodes: the value a missing `superDecoder` key decodes.
    private(set) var nullNode = 0

    /// Zero bytes after the document, so word-sized reads near its end stay inside the allocation.
    static let padding = 16

    enum ScanResult {
        case document(JSONDocument)
        /// Not valid JSON as Foundation scans it: `DecodingError.dataCorrupted` at the top level.
        case invalid
        /// Not for this decoder (UTF-16/UTF-32 input, or over 4 GB): let Foundation decode it.
        case unsupported
    }

    private init(copying source: UnsafeRawBufferPointer) {
        byteCount = source.count
        bytes = .allocate(capacity: byteCount + Self.padding)
        if let base = source.baseAddress, byteCount > 0 {
            bytes.initialize(from: base.assumingMemoryBound(to: UInt8.self), count: byteCount)
        }
        (bytes + byteCount).initialize(repeating: 0, count: Self.padding)
        nodeCapacity = max(16, byteCount / 5)
        nodes = .allocate(capacity: nodeCapacity)
    }

    deinit {
        bytes.deallocate()
        nodes.deallocate()
    }

    /// Scans `data` the way `JSONDecoder` does.
    static func scan(_ data: Data) -> ScanResult {
        data.withUnsafeBytes { raw -> ScanResult in
            // Foundation detects UTF-16 and UTF-32 (with or without a BOM) from the first four bytes
            // and converts; every such pattern has a 0x00, 0xFE or 0xFF byte there, which valid
            // UTF-8 JSON never starts with. Leave all of those to Foundation.
            for i in 0..<min(4, raw.count) where raw[i] == 0 || raw[i] >= 0xFE {
                return .unsupported
            }
            var body = raw
            if raw.count >= 3, raw[0] == 0xEF, raw[1] == 0xBB, raw[2] == 0xBF {
                body = UnsafeRawBufferPointer(rebasing: raw[3...]) // Foundation drops a UTF-8 BOM.
            }
            guard body.count < Int(UInt32.max) - padding else { return .unsupported }
            let document = JSONDocument(copying: body)
            guard document.scan() else { return .invalid }
            return .document(document)
        }
    }

    // MARK: - Scanning

    private static let maximumDepth = 512

    @inline(__always)
    private func append(_ header: UInt32, _ a: UInt32 = 0, _ b: UInt32 = 0) -> Int {
        if nodeCount == nodeCapacity { grow() }
        let index = nodeCount
        nodes[index] = JSONNode(header: header, a: a, b: b)
        nodeCount = index + 1
        return index
    }

    private func grow() {
        let capacity = nodeCapacity * 2
        let larger = UnsafeMutablePointer<JSONNode>.allocate(capacity: capacity)
        larger.moveInitialize(from: nodes, count: nodeCount)
        nodes.deallocate()
        nodes = larger
        nodeCapacity = capacity
    }

    /// Bits 9, 10, 13 and 32: tab, line feed, carriage return and space.
    private static let whitespaceMask: UInt64 = 1 << 9 | 1 << 10 | 1 << 13 | 1 << 32

    @inline(__always)
    private func skipWhitespace(_ position: Int) -> Int {
        var p = position
        while p < byteCount {
            let c = bytes[p]
            guard c <= 32, Self.whitespaceMask & (1 << UInt64(c)) != 0 else { return p }
            p += 1
        }
        return p
    }

    /// Fills the tape; false if the document is not valid JSON as Foundation scans it.
    private func scan() -> Bool {
        let stack = UnsafeMutablePointer<Int>.allocate(capacity: Self.maximumDepth)
        defer { stack.deallocate() }
        var depth = 0
        var p = 0

        nextValue: while true {
            p = skipWhitespace(p)
            guard p < byteCount else { return false }
            switch bytes[p] {
            case UInt8(ascii: "\""):
                guard let end = scanString(from: p + 1) else { return false }
                p = end
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isObject = bytes[p] == UInt8(ascii: "{")
                guard depth < Self.maximumDepth else { return false }
                stack[depth] = append(isObject ? JSONNodeKind.object.rawValue : JSONNodeKind.array.rawValue)
                depth += 1
                p = skipWhitespace(p + 1)
                guard p < byteCount else { return false }
                if bytes[p] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    p += 1
                    depth -= 1
                    nodes[stack[depth]].b = UInt32(nodeCount)
                } else {
                    if isObject {
                        guard let afterColon = scanKey(from: p, object: stack[depth - 1]) else { return false }
                        p = afterColon
                    }
                    continue nextValue
                }
            case UInt8(ascii: "t"):
                guard matches(p, "true") else { return false }
                _ = append(JSONNodeKind.true.rawValue)
                p += 4
            case UInt8(ascii: "f"):
                guard matches(p, "false") else { return false }
                _ = append(JSONNodeKind.false.rawValue)
                p += 5
            case UInt8(ascii: "n"):
                guard matches(p, "null") else { return false }
                _ = append(JSONNodeKind.null.rawValue)
                p += 4
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let start = p
                p += 1
                while p < byteCount, Self.isNumberByte(bytes[p]) { p += 1 }
                _ = append(JSONNodeKind.number.rawValue, UInt32(start), UInt32(p - start))
            default:
                return false
            }

            // A value is complete: continue its container, closing as many as end here.
            while depth > 0 {
                let container = stack[depth - 1]
                let isObject = nodes[container].kind == .object
                let closer = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
                nodes[container].a += 1
                p = skipWhitespace(p)
                guard p < byteCount else { return false }
                if bytes[p] == UInt8(ascii: ",") {
                    p = skipWhitespace(p + 1)
                    guard p < byteCount else { return false }
                    if bytes[p] != closer { // else a trailing comma, which Foundation accepts
                        if isObject {
                            guard let afterColon = scanKey(from: p, object: container) else { return false }
                            p = afterColon
                        }
                        continue nextValue
                    }
                } else if bytes[p] != closer {
                    return false
                }
                p += 1
                depth -= 1
                nodes[container].b = UInt32(nodeCount)
            }
            break
        }
        guard skipWhitespace(p) == byteCount else { return false }
        nullNode = append(JSONNodeKind.null.rawValue)
        return true
    }

    @inline(__always)
    private func matches(_ p: Int, _ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard byteCount - p >= count else { return false }
        return memcmp(bytes + p, literal.utf8Start, count) == 0
    }

    /// The bytes Foundation's scanner takes as part of a number: `0-9 . + -` (all below 64) and `e E`.
    @inline(__always)
    private static func isNumberByte(_ c: UInt8) -> Bool {
        let mask: UInt64 = 0x03FF_6800_0000_0000 // bits 43 (+), 45 (-), 46 (.), 48-57 (0-9)
        return c < 64 ? mask & (1 << UInt64(c)) != 0 : (c | 0x20) == UInt8(ascii: "e")
    }

    /// Scans an object key at `p` (which must be a quote), its whitespace and colon; returns the
    /// position after the colon.
    @inline(__always)
    private func scanKey(from position: Int, object: Int) -> Int? {
        guard bytes[position] == UInt8(ascii: "\""), let end = scanString(from: position + 1) else { return nil }
        if nodes[nodeCount - 1].header & (JSONNode.escaped | JSONNode.nonASCII) != 0 {
            nodes[object].header |= JSONNode.complexKeys
        }
        let colon = skipWhitespace(end)
        guard colon < byteCount, bytes[colon] == UInt8(ascii: ":") else { return nil }
        return colon + 1
    }

    /// Scans a string whose content starts at `start` (just after the opening quote) and appends
    /// its node; returns the position after the closing quote.
    @inline(__always)
    private func scanString(from start: Int) -> Int? {
        var p = start
        var highBits: UInt64 = 0
        // Eight bytes at a time until a quote, a backslash or a control character. The zero
        // padding after the document counts as control characters, so this stops there too.
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while true {
            let word = UnsafeRawPointer(bytes + p).loadUnaligned(as: UInt64.self)
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            let special = ((quote &- ones) & ~quote | (backslash &- ones) & ~backslash | (word &- ones &* 0x20) & ~word) & highs
            if special == 0 {
                highBits |= word
                p += 8
                continue
            }
            // The lowest flagged byte is exact (false positives only occur above a real match).
            let offset = special.trailingZeroBitCount >> 3
            highBits |= word & ((1 << UInt64(offset * 8)) &- 1)
            p += offset
            break
        }
        guard p < byteCount else { return nil }
        var header = JSONNodeKind.string.rawValue
        if bytes[p] != UInt8(ascii: "\"") {
            // A backslash or a control character: Foundation's non-simple string.
            header |= JSONNode.escaped
            while true {
                guard p < byteCount else { return nil }
                let c = bytes[p]
                if c == UInt8(ascii: "\"") { break }
                if c == UInt8(ascii: "\\") {
                    guard p + 1 < byteCount else { return nil }
                    let escaped = bytes[p + 1]
                    p += 2
                    if escaped == UInt8(ascii: "u") {
                        guard byteCount - p >= 4 else { return nil }
                        for i in 0..<4 where bytes[p + i] == UInt8(ascii: "\"") { return nil }
                        p += 4
                    }
                } else {
                    highBits |= UInt64(c)
                    p += 1
                }
            }
        }
        if highBits & highs != 0 { header |= JSONNode.nonASCII }
        _ = append(header, UInt32(start), UInt32(p - start))
        return p + 1
    }
}
