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

    /// Every node is written with a kind's raw value in its low four bits, so the `null` fallback
    /// is never taken (it is there so a damaged node could never be undefined behaviour).
    @inline(__always) var kind: JSONNodeKind { JSONNodeKind(rawValue: header & 0xF) ?? .null }
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

/// A document: a private copy of the bytes (followed by zero padding) and, once scanned, the tape.
/// It owns both buffers, so decoders and containers that escape a `decode` call stay valid.
///
/// The tape (12 bytes a value, a key counting as one) is reserved at its largest possible size
/// with `malloc`, which maps a large block lazily: only the pages written become resident, and
/// the tape never moves while it fills.
final class JSONDocument {
    /// The document's bytes, followed by `JSONDocument.padding` zero bytes.
    let bytes: UnsafeMutablePointer<UInt8>
    let byteCount: Int
    /// The tape; empty (room for a few nodes) until `scan()`.
    private(set) var nodes: UnsafeMutablePointer<JSONNode>
    private(set) var nodeCount = 0
    private var nodeCapacity: Int
    /// A `null` node after the document's own nodes: the value a missing `superDecoder` key decodes.
    private(set) var nullNode = 0

    /// Objects that decoders and containers refer to without reference counting (coding path
    /// nodes, key tables): they live as long as the document, which every decoder keeps alive.
    private var kept: [AnyObject] = []

    @inline(__always)
    func keep<T: AnyObject>(_ object: T) -> T {
        kept.append(object)
        return object
    }

    /// Zero bytes after the document, so word-sized reads near its end stay inside the allocation.
    static let padding = 16

    enum Preparation {
        case document(JSONDocument)
        /// Not for this decoder (UTF-16/UTF-32 input, over 4 GB, or no memory for the copy): let
        /// Foundation decode it.
        case unsupported
    }

    /// Copies `source`; nil when there is no memory for the copy.
    private init?(copying source: UnsafeRawBufferPointer) {
        byteCount = source.count
        nodeCapacity = 4
        guard let bytes = malloc(byteCount + Self.padding)?.bindMemory(to: UInt8.self, capacity: byteCount + Self.padding),
              let nodes = malloc(nodeCapacity * MemoryLayout<JSONNode>.stride)?.bindMemory(to: JSONNode.self, capacity: nodeCapacity)
        else { return nil }
        if let base = source.baseAddress, byteCount > 0 {
            bytes.initialize(from: base.assumingMemoryBound(to: UInt8.self), count: byteCount)
        }
        (bytes + byteCount).initialize(repeating: 0, count: Self.padding)
        self.bytes = bytes
        self.nodes = nodes
    }

    deinit {
        free(bytes)
        free(nodes)
    }

    /// Copies `data` for decoding the way `JSONDecoder` does, without scanning it yet.
    static func prepare(_ data: Data) -> Preparation {
        data.withUnsafeBytes { raw -> Preparation in
            // Foundation detects UTF-16 and UTF-32 (with or without a BOM) from the first four bytes
            // and converts; every such pattern has a 0x00, 0xFE or 0xFF byte there. Leave all input
            // with one of those bytes there (UTF-8 JSON does not start so) to Foundation itself.
            for i in 0..<min(4, raw.count) where raw[i] == 0 || raw[i] >= 0xFE {
                return .unsupported
            }
            var body = raw
            if raw.count >= 3, raw[0] == 0xEF, raw[1] == 0xBB, raw[2] == 0xBF {
                body = UnsafeRawBufferPointer(rebasing: raw[3...]) // Foundation drops a UTF-8 BOM.
            }
            guard body.count < Int(UInt32.max) - padding, let document = JSONDocument(copying: body) else { return .unsupported }
            return .document(document)
        }
    }

    /// The kind of the top-level value as its first byte announces it (`nil`: not a value's first
    /// byte, so the document is invalid). Says nothing about whether the rest is valid.
    var announcedKind: JSONNodeKind? {
        switch bytes[Self.skipWhitespace(UnsafePointer(bytes), 0, byteCount)] {
        case UInt8(ascii: "{"): .object
        case UInt8(ascii: "["): .array
        case UInt8(ascii: "\""): .string
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): .number
        case UInt8(ascii: "t"): .true
        case UInt8(ascii: "f"): .false
        case UInt8(ascii: "n"): .null
        default: nil
        }
    }

    enum ScanResult {
        /// The tape is built (`scan()`), or the document is valid (`validate()`).
        case valid
        /// Not valid JSON as Foundation scans it: `DecodingError.dataCorrupted` at the top level.
        case invalid
        /// No memory for the tape: let Foundation decode it.
        case unsupported
    }

    /// Builds the tape; call once.
    func scan() -> ScanResult {
        // At most one node per two bytes (a value and its separator), the trailing null node, and
        // the two the scanner reserves ahead. Should the reservation fail, start small and grow.
        if !reserve(byteCount / 2 + 4), !reserve(max(16, byteCount / 16)) { return .unsupported }
        return scan(RecordingTape.self)
    }

    /// Checks the document as `scan()` does without building the tape: for a decode that fails at
    /// the top level, which must say whether the document is valid JSON before how it mismatches.
    func validate() -> ScanResult {
        scan(NoTape.self)
    }

    // MARK: - Scanning

    private static let maximumDepth = 512

    /// Makes room for `capacity` nodes (`realloc`, which remaps a large block instead of copying
    /// it); false when there is no memory for it.
    private func reserve(_ capacity: Int) -> Bool {
        guard capacity > nodeCapacity else { return true }
        guard let larger = realloc(nodes, capacity * MemoryLayout<JSONNode>.stride) else { return false }
        nodes = larger.bindMemory(to: JSONNode.self, capacity: capacity)
        nodeCapacity = capacity
        return true
    }

    /// Bits 9, 10, 13 and 32: tab, line feed, carriage return and space.
    private static let whitespaceMask: UInt64 = 1 << 9 | 1 << 10 | 1 << 13 | 1 << 32

    @inline(__always)
    private static func skipWhitespace(_ base: UnsafePointer<UInt8>, _ position: Int, _ end: Int) -> Int {
        // The byte at `end` is padding (zero, not whitespace), so it may be read.
        var p = position
        while base[p] <= 32, whitespaceMask & (1 << UInt64(base[p])) != 0 {
            p &+= 1
        }
        return min(p, end)
    }

    /// Whether a scan writes the tape (`RecordingTape`) or only checks the document (`NoTape`).
    private protocol TapeMode {
        static var records: Bool { get }
    }

    private enum RecordingTape: TapeMode {
        static var records: Bool { true }
    }

    private enum NoTape: TapeMode {
        static var records: Bool { false }
    }

    /// Fills the tape (when `Mode.records`); `.invalid` if the document is not valid JSON as
    /// Foundation scans it. Without the tape, node indexes are still counted (they are nowhere
    /// written), so both modes take exactly the same decisions.
    private func scan<Mode: TapeMode>(_: Mode.Type) -> ScanResult {
        let base = UnsafePointer(bytes)
        let end = byteCount
        // The open containers: each one's tape index, shifted left once, with bit 0 set for an object.
        let stack = UnsafeMutablePointer<Int>.allocate(capacity: Self.maximumDepth)
        defer { stack.deallocate() }
        var depth = 0
        var p = 0
        // The tape in locals; written back before returning (and before growing).
        var out = nodes
        var count = 0
        var capacity = nodeCapacity
        defer { if Mode.records { nodeCount = count } }

        nextValue: while true {
            // A value, and for an object also the next key, append at most two nodes.
            if Mode.records, count + 2 > capacity {
                nodeCount = count
                guard reserve(max(capacity * 2, count + 2)) else { return .unsupported }
                out = nodes
                capacity = nodeCapacity
            }
            p = Self.skipWhitespace(base, p, end)
            guard p < end else { return .invalid }
            let c = base[p]
            switch c {
            case UInt8(ascii: "\""):
                guard let (close, header) = Self.scanString(base, p + 1, end) else { return .invalid }
                if Mode.records { out[count] = JSONNode(header: header, a: UInt32(truncatingIfNeeded: p &+ 1), b: UInt32(truncatingIfNeeded: close &- p &- 1)) }
                count &+= 1
                p = close &+ 1
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isObject = c == UInt8(ascii: "{")
                guard depth < Self.maximumDepth else { return .invalid }
                stack[depth] = count << 1 | (isObject ? 1 : 0)
                depth &+= 1
                if Mode.records { out[count] = JSONNode(header: isObject ? JSONNodeKind.object.rawValue : JSONNodeKind.array.rawValue, a: 0, b: 0) }
                count &+= 1
                p = Self.skipWhitespace(base, p &+ 1, end)
                guard p < end else { return .invalid }
                if base[p] == c &+ 2 { // `}` and `]` are two after `{` and `[`
                    p &+= 1
                    depth &-= 1
                    if Mode.records { out[count &- 1].b = UInt32(truncatingIfNeeded: count) }
                } else {
                    if isObject {
                        guard base[p] == UInt8(ascii: "\""), let (close, header) = Self.scanString(base, p + 1, end) else { return .invalid }
                        if Mode.records { out[count] = JSONNode(header: header, a: UInt32(truncatingIfNeeded: p &+ 1), b: UInt32(truncatingIfNeeded: close &- p &- 1)) }
                        count &+= 1
                        if Mode.records, header & (JSONNode.escaped | JSONNode.nonASCII) != 0 { out[count - 2].header |= JSONNode.complexKeys }
                        p = Self.skipWhitespace(base, close &+ 1, end)
                        guard p < end, base[p] == UInt8(ascii: ":") else { return .invalid }
                        p &+= 1
                    }
                    continue nextValue
                }
            case UInt8(ascii: "t"):
                guard end - p >= 4, UnsafeRawPointer(base + p).loadUnaligned(as: UInt32.self).littleEndian == 0x6575_7274 else { return .invalid } // "true"
                if Mode.records { out[count] = JSONNode(header: JSONNodeKind.true.rawValue, a: 0, b: 0) }
                count &+= 1
                p &+= 4
            case UInt8(ascii: "f"):
                guard end - p >= 5, UnsafeRawPointer(base + p + 1).loadUnaligned(as: UInt32.self).littleEndian == 0x6573_6C61 else { return .invalid } // "alse"
                if Mode.records { out[count] = JSONNode(header: JSONNodeKind.false.rawValue, a: 0, b: 0) }
                count &+= 1
                p &+= 5
            case UInt8(ascii: "n"):
                guard end - p >= 4, UnsafeRawPointer(base + p).loadUnaligned(as: UInt32.self).littleEndian == 0x6C6C_756E else { return .invalid } // "null"
                if Mode.records { out[count] = JSONNode(header: JSONNodeKind.null.rawValue, a: 0, b: 0) }
                count &+= 1
                p &+= 4
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let start = p
                p &+= 1
                while p < end, Self.isNumberByte(base[p]) { p &+= 1 }
                // Offsets and lengths fit: `prepare` leaves documents of 4 GB and more to Foundation.
                if Mode.records { out[count] = JSONNode(header: JSONNodeKind.number.rawValue, a: UInt32(truncatingIfNeeded: start), b: UInt32(truncatingIfNeeded: p &- start)) }
                count &+= 1
            default:
                return .invalid
            }

            // A value is complete: continue its container, closing as many as end here.
            while depth > 0 {
                let container = stack[depth - 1] >> 1
                let isObject = stack[depth - 1] & 1 != 0
                if Mode.records { out[container].a &+= 1 }
                let closer = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
                p = Self.skipWhitespace(base, p, end)
                guard p < end else { return .invalid }
                if base[p] == UInt8(ascii: ",") {
                    p = Self.skipWhitespace(base, p &+ 1, end)
                    guard p < end else { return .invalid }
                    if base[p] != closer { // else a trailing comma, which Foundation accepts
                        if isObject {
                            guard base[p] == UInt8(ascii: "\""), let (close, header) = Self.scanString(base, p + 1, end) else { return .invalid }
                            if Mode.records { out[count] = JSONNode(header: header, a: UInt32(truncatingIfNeeded: p &+ 1), b: UInt32(truncatingIfNeeded: close &- p &- 1)) }
                            count &+= 1
                            if Mode.records, header & (JSONNode.escaped | JSONNode.nonASCII) != 0 { out[container].header |= JSONNode.complexKeys }
                            p = Self.skipWhitespace(base, close &+ 1, end)
                            guard p < end, base[p] == UInt8(ascii: ":") else { return .invalid }
                            p &+= 1
                        }
                        continue nextValue
                    }
                } else if base[p] != closer {
                    return .invalid
                }
                p &+= 1
                depth &-= 1
                if Mode.records { out[container].b = UInt32(truncatingIfNeeded: count) }
            }
            break
        }
        guard Self.skipWhitespace(base, p, end) == end else { return .invalid }
        if Mode.records {
            out[count] = JSONNode(header: JSONNodeKind.null.rawValue, a: 0, b: 0) // room was ensured above
            nullNode = count
        }
        count &+= 1
        return .valid
    }

    /// The bytes Foundation's scanner takes as part of a number: `0-9 . + -` (all below 64) and `e E`.
    @inline(__always)
    private static func isNumberByte(_ c: UInt8) -> Bool {
        let mask: UInt64 = 0x03FF_6800_0000_0000 // bits 43 (+), 45 (-), 46 (.), 48-57 (0-9)
        return c < 64 ? mask & (1 << UInt64(c)) != 0 : (c | 0x20) == UInt8(ascii: "e")
    }

    /// Scans a string whose content starts at `start` (just after the opening quote); returns the
    /// position of the closing quote and the node's header.
    @inline(__always)
    private static func scanString(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> (Int, UInt32)? {
        var p = start
        var highBits: UInt64 = 0
        // Eight bytes at a time until a quote, a backslash or a control character. The zero
        // padding after the document counts as control characters, so this stops there too.
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while true {
            let word = UnsafeRawPointer(base + p).loadUnaligned(as: UInt64.self).littleEndian
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
        guard p < end else { return nil }
        var header = JSONNodeKind.string.rawValue
        if base[p] != UInt8(ascii: "\"") {
            // A backslash or a control character: Foundation's non-simple string.
            header |= JSONNode.escaped
            while true {
                guard p < end else { return nil }
                let c = base[p]
                if c == UInt8(ascii: "\"") { break }
                if c == UInt8(ascii: "\\") {
                    guard p + 1 < end else { return nil }
                    let escaped = base[p + 1]
                    p += 2
                    if escaped == UInt8(ascii: "u") {
                        guard end - p >= 4 else { return nil }
                        for i in 0..<4 where base[p + i] == UInt8(ascii: "\"") { return nil }
                        p += 4
                    }
                } else {
                    highBits |= UInt64(c)
                    p += 1
                }
            }
        }
        if highBits & highs != 0 { header |= JSONNode.nonASCII }
        return (p, header)
    }
}
