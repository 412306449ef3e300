import Foundation

/// A JSON decoder that gives the same results as a default `JSONDecoder()` — the same values and
/// the same errors (case, type, coding path, description) — several times faster.
///
/// One pass over the bytes builds a tape of 12-byte nodes (`JSONDocument`); containers walk it,
/// find keys by comparing bytes, and parse numbers and strings from the bytes when asked. Foundation
/// is consulted for what is rare (see `FoundationJSON`): numbers an integer type only accepts in
/// Foundation's own way (`1.0`, `1e2`), `Decimal`, base64 `Data`, and every malformed number or
/// string, so those answers are Foundation's own.
///
/// Use it only in place of a decoder for which ``canStandIn(for:)`` is true: any other options
/// (date, data, key or float strategies, `userInfo`, JSON5) change what decoding means.
enum FastJSONDecoder {
    /// Decodes `type` from `data` exactly as `JSONDecoder().decode(type, from: data)` does.
    static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        let document: JSONDocument
        switch JSONDocument.scan(data) {
        case .document(let scanned): document = scanned
        case .invalid: throw FoundationJSON.invalidJSON
        case .unsupported: return try FoundationJSON.decoder.decode(T.self, from: data)
        }
        let decoder = JSONTapeDecoder(document: document, index: 0, pathNode: nil)
        do {
            return try decoder.unwrap(T.self, at: 0, parent: nil, key: JSONIndexKey?.none)
        } catch {
            // Foundation's parser errors surface as one top-level `dataCorrupted`, as in `JSONDecoder`.
            if FoundationJSON.isParserError(error) { throw FoundationJSON.invalidJSON }
            throw error
        }
    }

    /// Decodes with this decoder when `decoder` is a plain `JSONDecoder` with default options,
    /// else with `decoder` itself.
    static func decode<T: Decodable>(_ type: T.Type, from data: Data, standingInFor decoder: JSONDecoder) throws -> T {
        try canStandIn(for: decoder) ? decode(T.self, from: data) : decoder.decode(T.self, from: data)
    }

    /// Whether this decoder gives the same results as `decoder`: a `JSONDecoder` (not a subclass,
    /// which may override `decode`) with every option at its default.
    static func canStandIn(for decoder: JSONDecoder) -> Bool {
        guard ObjectIdentifier(type(of: decoder)) == ObjectIdentifier(JSONDecoder.self),
              case .deferredToDate = decoder.dateDecodingStrategy,
              case .base64 = decoder.dataDecodingStrategy,
              case .throw = decoder.nonConformingFloatDecodingStrategy,
              case .useDefaultKeys = decoder.keyDecodingStrategy,
              !decoder.allowsJSON5,
              decoder.userInfo.isEmpty // also holds `assumesTopLevelDictionary`
        else { return false }
        return true
    }
}

// MARK: - Coding paths

/// One step of a coding path; the path of a value is its node and the node's ancestors. Built
/// only for values handed to a `Decodable` initializer or a nested container; the path of a
/// primitive is only assembled when an error needs it.
final class JSONPathNode {
    let parent: JSONPathNode?
    let key: any CodingKey

    init(parent: JSONPathNode?, key: any CodingKey) {
        self.parent = parent
        self.key = key
    }

    static func path(_ node: JSONPathNode?) -> [any CodingKey] {
        var keys: [any CodingKey] = []
        var node = node
        while let current = node {
            keys.append(current.key)
            node = current.parent
        }
        return keys.reversed()
    }

    static func path(_ node: JSONPathNode?, appending key: (some CodingKey)?) -> [any CodingKey] {
        guard let key else { return path(node) }
        return path(node) + [key]
    }

    @inline(__always)
    static func node(_ parent: JSONPathNode?, appending key: (some CodingKey)?) -> JSONPathNode? {
        guard let key else { return parent }
        return JSONPathNode(parent: parent, key: key)
    }
}

/// The key of an array element in a coding path, as Foundation writes it: "Index 3", intValue 3.
struct JSONIndexKey: CodingKey {
    let index: Int
    init(_ index: Int) { self.index = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { index = intValue }
    var stringValue: String { "Index \(index)" }
    var intValue: Int? { index }
}

/// The key of `superDecoder()` in a keyed container, as in Foundation: "super".
struct JSONSuperKey: CodingKey {
    init() {}
    init?(stringValue: String) { guard stringValue == "super" else { return nil } }
    init?(intValue: Int) { nil }
    var stringValue: String { "super" }
    var intValue: Int? { nil }
}

// MARK: - Decoder

/// The `Decoder` (and single-value container) over a tape. Like Foundation's, one instance serves a
/// whole decode: it points at the value being decoded and is re-pointed while nested values decode.
final class JSONTapeDecoder: Decoder, SingleValueDecodingContainer {
    let document: JSONDocument
    let bytes: UnsafePointer<UInt8>
    let nodes: UnsafePointer<JSONNode>
    /// The tape index of the value this decoder currently decodes.
    var index: Int
    var pathNode: JSONPathNode?

    init(document: JSONDocument, index: Int, pathNode: JSONPathNode?) {
        self.document = document
        self.bytes = UnsafePointer(document.bytes)
        self.nodes = UnsafePointer(document.nodes)
        self.index = index
        self.pathNode = pathNode
    }

    var codingPath: [any CodingKey] { JSONPathNode.path(pathNode) }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        try keyedContainer(Key.self, at: index, pathNode: pathNode)
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try unkeyedContainer(at: index, pathNode: pathNode)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    // MARK: Tape access

    /// The tape index after the value at `i`.
    @inline(__always)
    func skip(_ i: Int) -> Int {
        let node = nodes[i]
        return node.isContainer ? Int(node.b) : i + 1
    }

    @inline(__always)
    func isNull(_ i: Int) -> Bool { nodes[i].header & 0xF == JSONNodeKind.null.rawValue }

    // MARK: Containers

    func keyedContainer<Key: CodingKey>(_: Key.Type, at i: Int, pathNode: JSONPathNode?) throws -> KeyedDecodingContainer<Key> {
        switch nodes[i].kind {
        case .object:
            return KeyedDecodingContainer(try JSONKeyedContainer<Key>(decoder: self, object: i, pathNode: pathNode))
        case .null:
            throw DecodingError.valueNotFound([String: Any].self, DecodingError.Context(
                codingPath: JSONPathNode.path(pathNode),
                debugDescription: "Cannot get keyed decoding container -- found null value instead"))
        default:
            throw Self.typeMismatch([String: Any].self, nodes[i], JSONPathNode.path(pathNode))
        }
    }

    func unkeyedContainer(at i: Int, pathNode: JSONPathNode?) throws -> any UnkeyedDecodingContainer {
        switch nodes[i].kind {
        case .array:
            return JSONUnkeyedContainer(decoder: self, array: i, pathNode: pathNode)
        case .null:
            throw DecodingError.valueNotFound([Any].self, DecodingError.Context(
                codingPath: JSONPathNode.path(pathNode),
                debugDescription: "Cannot get unkeyed decoding container -- found null value instead"))
        default:
            throw Self.typeMismatch([Any].self, nodes[i], JSONPathNode.path(pathNode))
        }
    }

    // MARK: Errors, worded as Foundation words them

    static func typeMismatch(_ type: Any.Type, _ node: JSONNode, _ path: [any CodingKey]) -> DecodingError {
        .typeMismatch(type, DecodingError.Context(
            codingPath: path,
            debugDescription: "Expected to decode \(type) but found \(node.kind.foundationDescription) instead."))
    }

    static func valueNotFound(_ type: Any.Type, _ path: [any CodingKey]) -> DecodingError {
        .valueNotFound(type, DecodingError.Context(
            codingPath: path,
            debugDescription: "Cannot get value of type \(type) -- found null value instead"))
    }

    /// Foundation's answer, with a `DecodingError`'s path (empty for a fragment) moved under `path`.
    private func answer<T>(_ result: Result<T, any Error>, path: () -> [any CodingKey]) throws -> T {
        switch result {
        case .success(let value):
            return value
        case .failure(let error as DecodingError):
            throw Self.rebased(error, under: path())
        case .failure(let error):
            throw error
        }
    }

    private static func rebased(_ error: DecodingError, under path: [any CodingKey]) -> DecodingError {
        func moved(_ context: DecodingError.Context) -> DecodingError.Context {
            DecodingError.Context(codingPath: path + context.codingPath, debugDescription: context.debugDescription,
                                  underlyingError: context.underlyingError)
        }
        switch error {
        case .typeMismatch(let type, let context): return .typeMismatch(type, moved(context))
        case .valueNotFound(let type, let context): return .valueNotFound(type, moved(context))
        case .keyNotFound(let key, let context): return .keyNotFound(key, moved(context))
        case .dataCorrupted(let context): return .dataCorrupted(moved(context))
        @unknown default: return error
        }
    }

    // MARK: Primitives (the value at tape index `i`; `path` is only evaluated for an error)

    @inline(__always)
    func decodeBool(at i: Int, path: () -> [any CodingKey]) throws -> Bool {
        let node = nodes[i]
        switch node.kind {
        case .true: return true
        case .false: return false
        default: throw Self.typeMismatch(Bool.self, node, path())
        }
    }

    @inline(__always)
    func decodeString(at i: Int, path: () -> [any CodingKey]) throws -> String {
        let node = nodes[i]
        guard node.kind == .string else {
            throw node.kind == .null ? Self.valueNotFound(String.self, path()) : Self.typeMismatch(String.self, node, path())
        }
        return try string(node, path: path)
    }

    /// A string node's value; a key's too.
    @inline(__always)
    func string(_ node: JSONNode, path: () -> [any CodingKey]) throws -> String {
        let p = bytes + Int(node.a)
        let count = Int(node.b)
        if node.header & (JSONNode.escaped | JSONNode.nonASCII) == 0 {
            return JSONStringParsing.ascii(p, count)
        }
        let value = node.has(JSONNode.escaped) ? JSONStringParsing.unescaped(p, count) : JSONStringParsing.utf8(p, count)
        if let value { return value }
        return try answer(FoundationJSON.string(String.self, p, count), path: path)
    }

    @inline(__always)
    func decodeInteger<T: FixedWidthInteger & Decodable>(_: T.Type, at i: Int, path: () -> [any CodingKey]) throws -> T {
        let node = nodes[i]
        guard node.kind == .number else {
            throw node.kind == .null ? Self.valueNotFound(T.self, path()) : Self.typeMismatch(T.self, node, path())
        }
        let p = bytes + Int(node.a)
        if let value = JSONNumberParsing.integer(p, Int(node.b), as: T.self) { return value }
        return try answer(FoundationJSON.number(T.self, p, Int(node.b)), path: path)
    }

    @inline(__always)
    func decodeDouble(at i: Int, path: () -> [any CodingKey]) throws -> Double {
        let node = nodes[i]
        guard node.kind == .number else {
            throw node.kind == .null ? Self.valueNotFound(Double.self, path()) : Self.typeMismatch(Double.self, node, path())
        }
        let p = bytes + Int(node.a)
        if let value = JSONNumberParsing.double(p, Int(node.b)) { return value }
        return try answer(FoundationJSON.number(Double.self, p, Int(node.b)), path: path)
    }

    func decodeFloat(at i: Int, path: () -> [any CodingKey]) throws -> Float {
        let node = nodes[i]
        guard node.kind == .number else {
            throw node.kind == .null ? Self.valueNotFound(Float.self, path()) : Self.typeMismatch(Float.self, node, path())
        }
        let p = bytes + Int(node.a)
        if let value = JSONNumberParsing.float(p, Int(node.b)) { return value }
        return try answer(FoundationJSON.number(Float.self, p, Int(node.b)), path: path)
    }

    // MARK: Any Decodable

    /// Decodes the value at `i`, whose path is `parent` plus `key` (or just `parent` without a key),
    /// the way Foundation's `unwrap` does: `Data`, `Date`, `URL` and `Decimal` by the decoder's own
    /// rules, everything else by the type's initializer.
    @inline(__always)
    func unwrap<T: Decodable, K: CodingKey>(_: T.Type, at i: Int, parent: JSONPathNode?, key: K?) throws -> T {
        // The primitives directly: what their `init(from:)` would do, without a path node.
        if T.self == String.self {
            return unsafeBitCast(try decodeString(at: i) { JSONPathNode.path(parent, appending: key) }, to: T.self)
        }
        if T.self == Int.self {
            return unsafeBitCast(try decodeInteger(Int.self, at: i) { JSONPathNode.path(parent, appending: key) }, to: T.self)
        }
        if T.self == Double.self {
            return unsafeBitCast(try decodeDouble(at: i) { JSONPathNode.path(parent, appending: key) }, to: T.self)
        }
        if T.self == Bool.self {
            return unsafeBitCast(try decodeBool(at: i) { JSONPathNode.path(parent, appending: key) }, to: T.self)
        }
        if T.self == Data.self || T.self == Date.self || T.self == URL.self || T.self == Decimal.self {
            return try unwrapSpecial(T.self, at: i, parent: parent, key: key)
        }
        let savedIndex = index
        let savedPath = pathNode
        index = i
        pathNode = JSONPathNode.node(parent, appending: key)
        defer {
            index = savedIndex
            pathNode = savedPath
        }
        return try T(from: self)
    }

    /// `Data` (base64), `Date` (seconds since 2001, through `Date(from:)`), `URL` (a string) and
    /// `Decimal` (a number), as a default `JSONDecoder` decodes them.
    private func unwrapSpecial<T: Decodable, K: CodingKey>(_: T.Type, at i: Int, parent: JSONPathNode?, key: K?) throws -> T {
        let node = nodes[i]
        let path = { JSONPathNode.path(parent, appending: key) }
        if node.kind == .null { throw Self.valueNotFound(T.self, path()) }
        if T.self == Date.self {
            let savedIndex = index
            let savedPath = pathNode
            index = i
            pathNode = JSONPathNode.node(parent, appending: key)
            defer {
                index = savedIndex
                pathNode = savedPath
            }
            return try T(from: self)
        }
        if T.self == URL.self {
            let text = try decodeString(at: i, path: path)
            guard let url = URL(string: text) else {
                throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: path(), debugDescription: "Invalid URL string."))
            }
            return url as! T // T is URL
        }
        if T.self == Data.self {
            guard node.kind == .string else { throw Self.typeMismatch(String.self, node, path()) }
            return try answer(FoundationJSON.string(T.self, bytes + Int(node.a), Int(node.b)), path: path)
        }
        // Decimal
        guard node.kind == .number else {
            throw DecodingError.typeMismatch(Decimal.self, DecodingError.Context(codingPath: path(), debugDescription: ""))
        }
        return try answer(FoundationJSON.number(T.self, bytes + Int(node.a), Int(node.b)), path: path)
    }

    // MARK: SingleValueDecodingContainer

    func decodeNil() -> Bool { isNull(index) }
    func decode(_: Bool.Type) throws -> Bool { try decodeBool(at: index) { codingPath } }
    func decode(_: String.Type) throws -> String { try decodeString(at: index) { codingPath } }
    func decode(_: Double.Type) throws -> Double { try decodeDouble(at: index) { codingPath } }
    func decode(_: Float.Type) throws -> Float { try decodeFloat(at: index) { codingPath } }
    func decode(_: Int.Type) throws -> Int { try decodeInteger(Int.self, at: index) { codingPath } }
    func decode(_: Int8.Type) throws -> Int8 { try decodeInteger(Int8.self, at: index) { codingPath } }
    func decode(_: Int16.Type) throws -> Int16 { try decodeInteger(Int16.self, at: index) { codingPath } }
    func decode(_: Int32.Type) throws -> Int32 { try decodeInteger(Int32.self, at: index) { codingPath } }
    func decode(_: Int64.Type) throws -> Int64 { try decodeInteger(Int64.self, at: index) { codingPath } }
    func decode(_: Int128.Type) throws -> Int128 { try decodeInteger(Int128.self, at: index) { codingPath } }
    func decode(_: UInt.Type) throws -> UInt { try decodeInteger(UInt.self, at: index) { codingPath } }
    func decode(_: UInt8.Type) throws -> UInt8 { try decodeInteger(UInt8.self, at: index) { codingPath } }
    func decode(_: UInt16.Type) throws -> UInt16 { try decodeInteger(UInt16.self, at: index) { codingPath } }
    func decode(_: UInt32.Type) throws -> UInt32 { try decodeInteger(UInt32.self, at: index) { codingPath } }
    func decode(_: UInt64.Type) throws -> UInt64 { try decodeInteger(UInt64.self, at: index) { codingPath } }
    func decode(_: UInt128.Type) throws -> UInt128 { try decodeInteger(UInt128.self, at: index) { codingPath } }

    func decode<T: Decodable>(_: T.Type) throws -> T {
        try unwrap(T.self, at: index, parent: pathNode, key: JSONIndexKey?.none)
    }
}

// MARK: - Keyed container

/// Keys of objects whose keys cannot be compared as bytes (escapes or non-ASCII, where String
/// equality — canonical equivalence — decides), or of large objects: as Foundation does, a
/// dictionary from key to the first value with that key.
final class JSONKeyTable {
    var values: [String: Int] = [:]
    /// The distinct keys in document order.
    var keys: [String] = []

    init(decoder: JSONTapeDecoder, object: Int, pathNode: JSONPathNode?) throws {
        let count = Int(decoder.nodes[object].a)
        values.reserveCapacity(count)
        keys.reserveCapacity(count)
        var i = object + 1
        for _ in 0..<count {
            // Foundation converts every key when it creates the container, so an invalid one fails here.
            let key = try decoder.string(decoder.nodes[i]) { JSONPathNode.path(pathNode) }
            if values[key] == nil {
                values[key] = i + 1
                keys.append(key)
            }
            i = decoder.skip(i + 1)
        }
    }
}

struct JSONKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: JSONTapeDecoder
    let object: Int
    let pathNode: JSONPathNode?
    /// Set for objects with complex keys or many keys; else keys are found by comparing bytes.
    let table: JSONKeyTable?

    /// Above this many keys, lookups use a dictionary instead of a linear scan.
    private static var linearScanLimit: UInt32 { 24 }

    init(decoder: JSONTapeDecoder, object: Int, pathNode: JSONPathNode?) throws {
        self.decoder = decoder
        self.object = object
        self.pathNode = pathNode
        let node = decoder.nodes[object]
        table = node.has(JSONNode.complexKeys) || node.a > Self.linearScanLimit
            ? try JSONKeyTable(decoder: decoder, object: object, pathNode: pathNode)
            : nil
    }

    var codingPath: [any CodingKey] { JSONPathNode.path(pathNode) }

    var allKeys: [Key] {
        // Foundation's order is its dictionary's, which varies from run to run; this is document order.
        if let table { return table.keys.compactMap { Key(stringValue: $0) } }
        var seen = Set<String>()
        var keys: [Key] = []
        var i = object + 1
        for _ in 0..<Int(decoder.nodes[object].a) {
            let node = decoder.nodes[i]
            let name = JSONStringParsing.ascii(decoder.bytes + Int(node.a), Int(node.b))
            if seen.insert(name).inserted, let key = Key(stringValue: name) { keys.append(key) }
            i = decoder.skip(i + 1)
        }
        return keys
    }

    func contains(_ key: Key) -> Bool { valueIndex(for: key) != nil }

    /// The tape index of the first value whose key equals `key.stringValue`.
    @inline(__always)
    private func valueIndex(for key: some CodingKey) -> Int? {
        if let table { return table.values[key.stringValue] }
        var name = key.stringValue
        return name.withUTF8 { name -> Int? in
            let nodes = decoder.nodes
            let bytes = decoder.bytes
            let count = Int(nodes[object].a)
            let length = name.count
            var ascii = true
            for byte in name where byte >= 0x80 { ascii = false }
            guard ascii else { return valueIndex(forNonASCII: key.stringValue) }
            var i = object + 1
            for _ in 0..<count {
                let node = nodes[i]
                if Int(node.b) == length, length == 0 || memcmp(bytes + Int(node.a), name.baseAddress!, length) == 0 {
                    return i + 1
                }
                let value = nodes[i + 1]
                i = value.isContainer ? Int(value.b) : i + 2
            }
            return nil
        }
    }

    /// A non-ASCII name can still equal an ASCII key as a String (U+212A KELVIN SIGN is "K").
    private func valueIndex(forNonASCII name: String) -> Int? {
        var i = object + 1
        for _ in 0..<Int(decoder.nodes[object].a) {
            let node = decoder.nodes[i]
            if JSONStringParsing.ascii(decoder.bytes + Int(node.a), Int(node.b)) == name { return i + 1 }
            i = decoder.skip(i + 1)
        }
        return nil
    }

    @inline(__always)
    private func require(_ key: Key) throws -> Int {
        guard let i = valueIndex(for: key) else {
            throw DecodingError.keyNotFound(key, DecodingError.Context(
                codingPath: codingPath,
                debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
        }
        return i
    }

    @inline(__always)
    private func path(_ key: Key) -> [any CodingKey] { JSONPathNode.path(pathNode, appending: key) }

    func decodeNil(forKey key: Key) throws -> Bool { decoder.isNull(try require(key)) }

    func decode(_: Bool.Type, forKey key: Key) throws -> Bool { try decoder.decodeBool(at: require(key)) { path(key) } }
    func decode(_: String.Type, forKey key: Key) throws -> String { try decoder.decodeString(at: require(key)) { path(key) } }
    func decode(_: Double.Type, forKey key: Key) throws -> Double { try decoder.decodeDouble(at: require(key)) { path(key) } }
    func decode(_: Float.Type, forKey key: Key) throws -> Float { try decoder.decodeFloat(at: require(key)) { path(key) } }
    func decode(_: Int.Type, forKey key: Key) throws -> Int { try integer(Int.self, key) }
    func decode(_: Int8.Type, forKey key: Key) throws -> Int8 { try integer(Int8.self, key) }
    func decode(_: Int16.Type, forKey key: Key) throws -> Int16 { try integer(Int16.self, key) }
    func decode(_: Int32.Type, forKey key: Key) throws -> Int32 { try integer(Int32.self, key) }
    func decode(_: Int64.Type, forKey key: Key) throws -> Int64 { try integer(Int64.self, key) }
    func decode(_: Int128.Type, forKey key: Key) throws -> Int128 { try integer(Int128.self, key) }
    func decode(_: UInt.Type, forKey key: Key) throws -> UInt { try integer(UInt.self, key) }
    func decode(_: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(UInt8.self, key) }
    func decode(_: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(UInt16.self, key) }
    func decode(_: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(UInt32.self, key) }
    func decode(_: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(UInt64.self, key) }
    func decode(_: UInt128.Type, forKey key: Key) throws -> UInt128 { try integer(UInt128.self, key) }

    @inline(__always)
    private func integer<T: FixedWidthInteger & Decodable>(_: T.Type, _ key: Key) throws -> T {
        try decoder.decodeInteger(T.self, at: require(key)) { path(key) }
    }

    func decode<T: Decodable>(_: T.Type, forKey key: Key) throws -> T {
        try decoder.unwrap(T.self, at: require(key), parent: pathNode, key: key)
    }

    // decodeIfPresent: a missing key or null is nil, anything else decodes as with decode.

    /// The value for `key` unless it is missing or null.
    @inline(__always)
    private func present(_ key: Key) -> Int? {
        guard let i = valueIndex(for: key), !decoder.isNull(i) else { return nil }
        return i
    }

    func decodeIfPresent(_: Bool.Type, forKey key: Key) throws -> Bool? {
        guard let i = present(key) else { return nil }
        return try decoder.decodeBool(at: i) { path(key) }
    }

    func decodeIfPresent(_: String.Type, forKey key: Key) throws -> String? {
        guard let i = present(key) else { return nil }
        return try decoder.decodeString(at: i) { path(key) }
    }

    func decodeIfPresent(_: Double.Type, forKey key: Key) throws -> Double? {
        guard let i = present(key) else { return nil }
        return try decoder.decodeDouble(at: i) { path(key) }
    }

    func decodeIfPresent(_: Float.Type, forKey key: Key) throws -> Float? {
        guard let i = present(key) else { return nil }
        return try decoder.decodeFloat(at: i) { path(key) }
    }

    func decodeIfPresent(_: Int.Type, forKey key: Key) throws -> Int? { try integerIfPresent(Int.self, key) }
    func decodeIfPresent(_: Int8.Type, forKey key: Key) throws -> Int8? { try integerIfPresent(Int8.self, key) }
    func decodeIfPresent(_: Int16.Type, forKey key: Key) throws -> Int16? { try integerIfPresent(Int16.self, key) }
    func decodeIfPresent(_: Int32.Type, forKey key: Key) throws -> Int32? { try integerIfPresent(Int32.self, key) }
    func decodeIfPresent(_: Int64.Type, forKey key: Key) throws -> Int64? { try integerIfPresent(Int64.self, key) }
    func decodeIfPresent(_: UInt.Type, forKey key: Key) throws -> UInt? { try integerIfPresent(UInt.self, key) }
    func decodeIfPresent(_: UInt8.Type, forKey key: Key) throws -> UInt8? { try integerIfPresent(UInt8.self, key) }
    func decodeIfPresent(_: UInt16.Type, forKey key: Key) throws -> UInt16? { try integerIfPresent(UInt16.self, key) }
    func decodeIfPresent(_: UInt32.Type, forKey key: Key) throws -> UInt32? { try integerIfPresent(UInt32.self, key) }
    func decodeIfPresent(_: UInt64.Type, forKey key: Key) throws -> UInt64? { try integerIfPresent(UInt64.self, key) }

    @inline(__always)
    private func integerIfPresent<T: FixedWidthInteger & Decodable>(_: T.Type, _ key: Key) throws -> T? {
        guard let i = present(key) else { return nil }
        return try decoder.decodeInteger(T.self, at: i) { path(key) }
    }

    func decodeIfPresent<T: Decodable>(_: T.Type, forKey key: Key) throws -> T? {
        guard let i = present(key) else { return nil }
        return try decoder.unwrap(T.self, at: i, parent: pathNode, key: key)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        let i = try require(key)
        return try decoder.keyedContainer(NestedKey.self, at: i, pathNode: JSONPathNode(parent: pathNode, key: key))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let i = try require(key)
        return try decoder.unkeyedContainer(at: i, pathNode: JSONPathNode(parent: pathNode, key: key))
    }

    func superDecoder() throws -> any Decoder { decoder(for: JSONSuperKey()) }
    func superDecoder(forKey key: Key) throws -> any Decoder { decoder(for: key) }

    /// A decoder of its own for the value at `key`; a missing key gives a null value, as in Foundation.
    private func decoder(for key: some CodingKey) -> any Decoder {
        JSONTapeDecoder(document: decoder.document, index: valueIndex(for: key) ?? decoder.document.nullNode,
                        pathNode: JSONPathNode(parent: pathNode, key: key))
    }
}

// MARK: - Unkeyed container

struct JSONUnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: JSONTapeDecoder
    let pathNode: JSONPathNode?
    /// The tape index of the element at `currentIndex` (while not at the end).
    private var cursor: Int
    private let total: Int
    private(set) var currentIndex = 0

    init(decoder: JSONTapeDecoder, array: Int, pathNode: JSONPathNode?) {
        self.decoder = decoder
        self.pathNode = pathNode
        cursor = array + 1
        total = Int(decoder.nodes[array].a)
    }

    var codingPath: [any CodingKey] { JSONPathNode.path(pathNode) }
    var count: Int? { total }
    var isAtEnd: Bool { currentIndex >= total }

    @inline(__always)
    private func elementPath() -> [any CodingKey] { JSONPathNode.path(pathNode, appending: JSONIndexKey(currentIndex)) }

    /// The current element, or Foundation's error at the end.
    @inline(__always)
    private func next(_ type: Any.Type, atEnd message: String = "Unkeyed container is at end.") throws -> Int {
        guard currentIndex < total else {
            throw DecodingError.valueNotFound(type, DecodingError.Context(codingPath: elementPath(), debugDescription: message))
        }
        return cursor
    }

    /// The current element unless at the end or null (for decodeIfPresent).
    @inline(__always)
    private func present() -> Int? {
        guard currentIndex < total, !decoder.isNull(cursor) else { return nil }
        return cursor
    }

    /// Moves to the next element. Like Foundation's, `decodeIfPresent` at the end still counts up `currentIndex`.
    @inline(__always)
    private mutating func advance() {
        if currentIndex < total { cursor = decoder.skip(cursor) }
        currentIndex += 1
    }

    mutating func decodeNil() throws -> Bool {
        let i = try next(Never.self)
        guard decoder.isNull(i) else { return false }
        advance()
        return true
    }

    mutating func decode(_: Bool.Type) throws -> Bool {
        let value = try decoder.decodeBool(at: next(Bool.self)) { elementPath() }
        advance()
        return value
    }

    mutating func decode(_: String.Type) throws -> String {
        let value = try decoder.decodeString(at: next(String.self)) { elementPath() }
        advance()
        return value
    }

    mutating func decode(_: Double.Type) throws -> Double {
        let value = try decoder.decodeDouble(at: next(Double.self)) { elementPath() }
        advance()
        return value
    }

    mutating func decode(_: Float.Type) throws -> Float {
        let value = try decoder.decodeFloat(at: next(Float.self)) { elementPath() }
        advance()
        return value
    }

    mutating func decode(_: Int.Type) throws -> Int { try integer(Int.self) }
    mutating func decode(_: Int8.Type) throws -> Int8 { try integer(Int8.self) }
    mutating func decode(_: Int16.Type) throws -> Int16 { try integer(Int16.self) }
    mutating func decode(_: Int32.Type) throws -> Int32 { try integer(Int32.self) }
    mutating func decode(_: Int64.Type) throws -> Int64 { try integer(Int64.self) }
    mutating func decode(_: Int128.Type) throws -> Int128 { try integer(Int128.self) }
    mutating func decode(_: UInt.Type) throws -> UInt { try integer(UInt.self) }
    mutating func decode(_: UInt8.Type) throws -> UInt8 { try integer(UInt8.self) }
    mutating func decode(_: UInt16.Type) throws -> UInt16 { try integer(UInt16.self) }
    mutating func decode(_: UInt32.Type) throws -> UInt32 { try integer(UInt32.self) }
    mutating func decode(_: UInt64.Type) throws -> UInt64 { try integer(UInt64.self) }
    mutating func decode(_: UInt128.Type) throws -> UInt128 { try integer(UInt128.self) }

    @inline(__always)
    private mutating func integer<T: FixedWidthInteger & Decodable>(_: T.Type) throws -> T {
        let value = try decoder.decodeInteger(T.self, at: next(T.self)) { elementPath() }
        advance()
        return value
    }

    mutating func decode<T: Decodable>(_: T.Type) throws -> T {
        let value = try decoder.unwrap(T.self, at: next(T.self), parent: pathNode, key: JSONIndexKey(currentIndex))
        advance()
        return value
    }

    mutating func decodeIfPresent(_: Bool.Type) throws -> Bool? {
        let value = try present().map { try decoder.decodeBool(at: $0) { elementPath() } }
        advance()
        return value
    }

    mutating func decodeIfPresent(_: String.Type) throws -> String? {
        let value = try present().map { try decoder.decodeString(at: $0) { elementPath() } }
        advance()
        return value
    }

    mutating func decodeIfPresent(_: Double.Type) throws -> Double? {
        let value = try present().map { try decoder.decodeDouble(at: $0) { elementPath() } }
        advance()
        return value
    }

    mutating func decodeIfPresent(_: Float.Type) throws -> Float? {
        let value = try present().map { try decoder.decodeFloat(at: $0) { elementPath() } }
        advance()
        return value
    }

    mutating func decodeIfPresent(_: Int.Type) throws -> Int? { try integerIfPresent(Int.self) }
    mutating func decodeIfPresent(_: Int8.Type) throws -> Int8? { try integerIfPresent(Int8.self) }
    mutating func decodeIfPresent(_: Int16.Type) throws -> Int16? { try integerIfPresent(Int16.self) }
    mutating func decodeIfPresent(_: Int32.Type) throws -> Int32? { try integerIfPresent(Int32.self) }
    mutating func decodeIfPresent(_: Int64.Type) throws -> Int64? { try integerIfPresent(Int64.self) }
    mutating func decodeIfPresent(_: UInt.Type) throws -> UInt? { try integerIfPresent(UInt.self) }
    mutating func decodeIfPresent(_: UInt8.Type) throws -> UInt8? { try integerIfPresent(UInt8.self) }
    mutating func decodeIfPresent(_: UInt16.Type) throws -> UInt16? { try integerIfPresent(UInt16.self) }
    mutating func decodeIfPresent(_: UInt32.Type) throws -> UInt32? { try integerIfPresent(UInt32.self) }
    mutating func decodeIfPresent(_: UInt64.Type) throws -> UInt64? { try integerIfPresent(UInt64.self) }

    @inline(__always)
    private mutating func integerIfPresent<T: FixedWidthInteger & Decodable>(_: T.Type) throws -> T? {
        let value = try present().map { try decoder.decodeInteger(T.self, at: $0) { elementPath() } }
        advance()
        return value
    }

    mutating func decodeIfPresent<T: Decodable>(_: T.Type) throws -> T? {
        let value = try present().map { try decoder.unwrap(T.self, at: $0, parent: pathNode, key: JSONIndexKey(currentIndex)) }
        advance()
        return value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let i = try next(KeyedDecodingContainer<NestedKey>.self)
        let container = try decoder.keyedContainer(NestedKey.self, at: i,
                                                   pathNode: JSONPathNode(parent: pathNode, key: JSONIndexKey(currentIndex)))
        advance()
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let i = try next((any UnkeyedDecodingContainer).self)
        let container = try decoder.unkeyedContainer(at: i, pathNode: JSONPathNode(parent: pathNode, key: JSONIndexKey(currentIndex)))
        advance()
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let i = try next((any Decoder).self, atEnd: "Cannot get superDecoder() -- unkeyed container is at end.")
        let superDecoder = JSONTapeDecoder(document: decoder.document, index: i,
                                           pathNode: JSONPathNode(parent: pathNode, key: JSONIndexKey(currentIndex)))
        advance()
        return superDecoder
    }
}
