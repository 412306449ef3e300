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
        let decoder = JSONTapeDecoder(document: document, index: 0, path: .root)
        do {
            return try decoder.unwrap(T.self, at: 0, parent: .root, key: JSONNoKey())
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

/// One materialized step of a coding path; a path is a node and the node's ancestors. Nodes are
/// owned by their document (`JSONDocument.keep`), so paths refer to them without reference counting.
final class JSONPathNode {
    let parent: JSONPathNode?
    let key: any CodingKey

    init(parent: JSONPathNode?, key: any CodingKey) {
        self.parent = parent
        self.key = key
    }
}

/// The coding path of a value: materialized nodes plus, for an array element, its index, which
/// only becomes a node when a nested value needs it as its parent. Plain data, cheap to copy: so
/// decoding an array of structs of primitives allocates nothing for paths; keys are only
/// assembled for an error.
struct JSONPath {
    /// Owned by the document, which every decoder and container keeps alive.
    unowned(unsafe) let parent: JSONPathNode?
    /// The index of an array element after `parent`, or -1.
    let index: Int

    static var root: JSONPath { JSONPath(parent: nil, index: -1) }

    var keys: [any CodingKey] { keys(appending: JSONNoKey()) }

    func keys(appending extra: some CodingKey) -> [any CodingKey] {
        var keys: [any CodingKey] = []
        if !(extra is JSONNoKey) { keys.append(extra) }
        if index >= 0 { keys.append(JSONIndexKey(index)) }
        var node = parent
        while let current = node {
            keys.append(current.key)
            node = current.parent
        }
        return keys.reversed()
    }

    /// The path as a node, for nested paths.
    @inline(__always)
    func node(in document: JSONDocument) -> JSONPathNode? {
        guard index >= 0 else { return parent }
        return document.keep(JSONPathNode(parent: parent, key: JSONIndexKey(index)))
    }

    /// The path of a value nested at `key`.
    @inline(__always)
    func child<K: CodingKey>(_ key: K, in document: JSONDocument) -> JSONPath {
        if K.self == JSONNoKey.self { return self }
        if K.self == JSONIndexKey.self {
            return JSONPath(parent: node(in: document), index: unsafeBitCast(key, to: JSONIndexKey.self).index)
        }
        return JSONPath(parent: document.keep(JSONPathNode(parent: node(in: document), key: key)), index: -1)
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

/// No key: a value decoded at its decoder's own path (single-value containers, the top level).
struct JSONNoKey: CodingKey {
    init() {}
    init?(stringValue: String) { nil }
    init?(intValue: Int) { nil }
    var stringValue: String { "" }
    var intValue: Int? { nil }
}

// MARK: - Decoder

/// The `Decoder` (and single-value container) over a tape. Like Foundation's, one instance serves a
/// whole decode: it points at the value being decoded and is re-pointed while nested values decode.
final class JSONTapeDecoder: Decoder, SingleValueDecodingContainer {
    let document: JSONDocument
    let bytes: UnsafePointer<UInt8>
    let nodes: UnsafePointer<JSONNode>
    // Re-pointed for each nested value, never while another access is in progress; unchecked, as
    // the runtime's exclusivity checks on these two dominated the cost of decoding small values.
    /// The tape index of the value this decoder currently decodes.
    @exclusivity(unchecked) var index: Int
    /// That value's coding path.
    @exclusivity(unchecked) var path: JSONPath

    init(document: JSONDocument, index: Int, path: JSONPath) {
        self.document = document
        self.bytes = UnsafePointer(document.bytes)
        self.nodes = UnsafePointer(document.nodes)
        self.index = index
        self.path = path
    }

    var codingPath: [any CodingKey] { path.keys }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        try keyedContainer(Key.self, at: index, path: path)
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try unkeyedContainer(at: index, path: path)
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

    func keyedContainer<Key: CodingKey>(_: Key.Type, at i: Int, path: JSONPath) throws -> KeyedDecodingContainer<Key> {
        switch nodes[i].kind {
        case .object:
            return KeyedDecodingContainer(try JSONKeyedContainer<Key>(decoder: self, object: i, path: path))
        case .null:
            throw DecodingError.valueNotFound([String: Any].self, DecodingError.Context(
                codingPath: path.keys,
                debugDescription: "Cannot get keyed decoding container -- found null value instead"))
        default:
            throw Self.typeMismatch([String: Any].self, nodes[i], path.keys)
        }
    }

    func unkeyedContainer(at i: Int, path: JSONPath) throws -> any UnkeyedDecodingContainer {
        try checkArray(at: i) { path.keys }
        return JSONUnkeyedContainer(decoder: self, array: i, path: path)
    }

    @inline(__always)
    private func checkArray(at i: Int, path: () -> [any CodingKey]) throws {
        switch nodes[i].kind {
        case .array:
            return
        case .null:
            throw DecodingError.valueNotFound([Any].self, DecodingError.Context(
                codingPath: path(),
                debugDescription: "Cannot get unkeyed decoding container -- found null value instead"))
        default:
            throw Self.typeMismatch([Any].self, nodes[i], path())
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

    /// Decodes the value at `i`, whose path is `parent` plus `key` (`JSONNoKey`: just `parent`), the
    /// way Foundation's `unwrap` does: `Data`, `Date`, `URL` and `Decimal` by the decoder's own rules,
    /// everything else by the type's initializer. Primitives and arrays of them are decoded
    /// directly, exactly as their `init(from:)` would through this decoder, without building a path.
    @inline(__always)
    func unwrap<T: Decodable, K: CodingKey>(_: T.Type, at i: Int, parent: JSONPath, key: K) throws -> T {
        if T.self == String.self {
            return unsafeBitCast(try decodeString(at: i) { parent.keys(appending: key) }, to: T.self)
        }
        if T.self == Int.self {
            return unsafeBitCast(try decodeInteger(Int.self, at: i) { parent.keys(appending: key) }, to: T.self)
        }
        if T.self == Double.self {
            return unsafeBitCast(try decodeDouble(at: i) { parent.keys(appending: key) }, to: T.self)
        }
        if T.self == Bool.self {
            return unsafeBitCast(try decodeBool(at: i) { parent.keys(appending: key) }, to: T.self)
        }
        if T.self == [String].self {
            return unsafeBitCast(try decodeArray(at: i, parent: parent, key: key) { try decodeString(at: $0, path: $1) }, to: T.self)
        }
        if T.self == [Int].self {
            return unsafeBitCast(try decodeArray(at: i, parent: parent, key: key) { try decodeInteger(Int.self, at: $0, path: $1) }, to: T.self)
        }
        if T.self == [Double].self {
            return unsafeBitCast(try decodeArray(at: i, parent: parent, key: key) { try decodeDouble(at: $0, path: $1) }, to: T.self)
        }
        if T.self == [Bool].self {
            return unsafeBitCast(try decodeArray(at: i, parent: parent, key: key) { try decodeBool(at: $0, path: $1) }, to: T.self)
        }
        if T.self == Data.self || T.self == Date.self || T.self == URL.self || T.self == Decimal.self {
            return try unwrapSpecial(T.self, at: i, parent: parent, key: key)
        }
        return try nested(at: i, path: parent.child(key, in: document)) { try T(from: self) }
    }

    /// Runs `body` with this decoder pointed at the value at `i`.
    @inline(__always)
    private func nested<R>(at i: Int, path newPath: JSONPath, _ body: () throws -> R) rethrows -> R {
        let savedIndex = index
        let savedPath = path
        index = i
        path = newPath
        defer {
            index = savedIndex
            path = savedPath
        }
        return try body()
    }

    /// What `Array<Element>.init(from:)` does for a primitive element through this decoder: an
    /// unkeyed container, then `decode(Element.self)` until its end.
    @inline(__always)
    private func decodeArray<Element, K: CodingKey>(at i: Int, parent: JSONPath, key: K,
                                                    _ element: (Int, () -> [any CodingKey]) throws -> Element) throws -> [Element] {
        try checkArray(at: i) { parent.keys(appending: key) }
        let count = Int(nodes[i].a)
        var result: [Element] = []
        result.reserveCapacity(count)
        var cursor = i + 1
        for position in 0..<count {
            result.append(try element(cursor) { parent.keys(appending: key) + [JSONIndexKey(position)] })
            cursor = skip(cursor)
        }
        return result
    }

    /// `Data` (base64), `Date` (seconds since 2001, through `Date(from:)`), `URL` (a string) and
    /// `Decimal` (a number), as a default `JSONDecoder` decodes them.
    private func unwrapSpecial<T: Decodable, K: CodingKey>(_: T.Type, at i: Int, parent: JSONPath, key: K) throws -> T {
        let node = nodes[i]
        let path = { parent.keys(appending: key) }
        if node.kind == .null { throw Self.valueNotFound(T.self, path()) }
        if T.self == Date.self {
            return try nested(at: i, path: parent.child(key, in: document)) { try T(from: self) }
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
        try unwrap(T.self, at: index, parent: path, key: JSONNoKey())
    }
}

// MARK: - Keyed container

/// Keys of objects whose keys cannot be compared as bytes (escapes or non-ASCII, where String
/// equality — canonical equivalence — decides), or of large objects: as Foundation does, a
/// dictionary from key to the first value with that key. Owned by the document.
final class JSONKeyTable {
    var values: [String: Int] = [:]
    /// The distinct keys in document order.
    var keys: [String] = []

    init(decoder: JSONTapeDecoder, object: Int, path: JSONPath) throws {
        let count = Int(decoder.nodes[object].a)
        values.reserveCapacity(count)
        keys.reserveCapacity(count)
        var i = object + 1
        for _ in 0..<count {
            // Foundation converts every key when it creates the container, so an invalid one fails here.
            let key = try decoder.string(decoder.nodes[i]) { path.keys }
            if values[key] == nil {
                values[key] = i + 1
                keys.append(key)
            }
            i = decoder.skip(i + 1)
        }
    }
}

struct JSONKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    // The standard library's box copies this struct for every call, so it holds one reference.
    let decoder: JSONTapeDecoder
    let object: Int
    let path: JSONPath
    /// Set for objects with complex keys or many keys; else keys are found by comparing bytes.
    /// Owned by the document.
    unowned(unsafe) let table: JSONKeyTable?

    /// Above this many keys, lookups use a dictionary instead of a linear scan.
    private static var linearScanLimit: UInt32 { 24 }

    init(decoder: JSONTapeDecoder, object: Int, path: JSONPath) throws {
        self.decoder = decoder
        self.object = object
        self.path = path
        let node = decoder.nodes[object]
        table = node.has(JSONNode.complexKeys) || node.a > Self.linearScanLimit
            ? decoder.document.keep(try JSONKeyTable(decoder: decoder, object: object, path: path))
            : nil
    }

    var codingPath: [any CodingKey] { path.keys }

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
        let decoder = decoder
        let object = object
        let found = name.withUTF8 { name -> Int? in
            let length = name.count
            for byte in name where byte >= 0x80 { return -1 }
            let nodes = decoder.nodes
            let bytes = decoder.bytes
            var i = object + 1
            for _ in 0..<Int(nodes[object].a) {
                let node = nodes[i]
                if Int(node.b) == length, Self.equal(bytes + Int(node.a), name.baseAddress, length) {
                    return i + 1
                }
                let value = nodes[i + 1]
                i = value.isContainer ? Int(value.b) : i + 2
            }
            return nil
        }
        return found == -1 ? valueIndex(forNonASCII: name) : found
    }

    @inline(__always)
    private static func equal(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>?, _ count: Int) -> Bool {
        guard let b else { return count == 0 }
        for i in 0..<count where a[i] != b[i] { return false }
        return true
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
                codingPath: path.keys,
                debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
        }
        return i
    }

    func decodeNil(forKey key: Key) throws -> Bool { decoder.isNull(try require(key)) }

    func decode(_: Bool.Type, forKey key: Key) throws -> Bool {
        let path = path
        return try decoder.decodeBool(at: require(key)) { path.keys(appending: key) }
    }

    func decode(_: String.Type, forKey key: Key) throws -> String {
        let path = path
        return try decoder.decodeString(at: require(key)) { path.keys(appending: key) }
    }

    func decode(_: Double.Type, forKey key: Key) throws -> Double {
        let path = path
        return try decoder.decodeDouble(at: require(key)) { path.keys(appending: key) }
    }

    func decode(_: Float.Type, forKey key: Key) throws -> Float {
        let path = path
        return try decoder.decodeFloat(at: require(key)) { path.keys(appending: key) }
    }

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
        let path = path
        return try decoder.decodeInteger(T.self, at: require(key)) { path.keys(appending: key) }
    }

    func decode<T: Decodable>(_: T.Type, forKey key: Key) throws -> T {
        try decoder.unwrap(T.self, at: require(key), parent: path, key: key)
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
        let path = path
        return try decoder.decodeBool(at: i) { path.keys(appending: key) }
    }

    func decodeIfPresent(_: String.Type, forKey key: Key) throws -> String? {
        guard let i = present(key) else { return nil }
        let path = path
        return try decoder.decodeString(at: i) { path.keys(appending: key) }
    }

    func decodeIfPresent(_: Double.Type, forKey key: Key) throws -> Double? {
        guard let i = present(key) else { return nil }
        let path = path
        return try decoder.decodeDouble(at: i) { path.keys(appending: key) }
    }

    func decodeIfPresent(_: Float.Type, forKey key: Key) throws -> Float? {
        guard let i = present(key) else { return nil }
        let path = path
        return try decoder.decodeFloat(at: i) { path.keys(appending: key) }
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
        let path = path
        return try decoder.decodeInteger(T.self, at: i) { path.keys(appending: key) }
    }

    func decodeIfPresent<T: Decodable>(_: T.Type, forKey key: Key) throws -> T? {
        guard let i = present(key) else { return nil }
        return try decoder.unwrap(T.self, at: i, parent: path, key: key)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        let i = try require(key)
        return try decoder.keyedContainer(NestedKey.self, at: i, path: path.child(key, in: decoder.document))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let i = try require(key)
        return try decoder.unkeyedContainer(at: i, path: path.child(key, in: decoder.document))
    }

    func superDecoder() throws -> any Decoder { decoder(for: JSONSuperKey()) }
    func superDecoder(forKey key: Key) throws -> any Decoder { decoder(for: key) }

    /// A decoder of its own for the value at `key`; a missing key gives a null value, as in Foundation.
    private func decoder(for key: some CodingKey) -> any Decoder {
        JSONTapeDecoder(document: decoder.document, index: valueIndex(for: key) ?? decoder.document.nullNode,
                        path: path.child(key, in: decoder.document))
    }
}

// MARK: - Unkeyed container

struct JSONUnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: JSONTapeDecoder
    let path: JSONPath
    /// The tape index of the element at `currentIndex` (while not at the end).
    private var cursor: Int
    private let total: Int
    private(set) var currentIndex = 0
    /// `path` with its last index in a node: the parent of the elements' nested paths, made once.
    private var elementParent: JSONPath?

    init(decoder: JSONTapeDecoder, array: Int, path: JSONPath) {
        self.decoder = decoder
        self.path = path
        cursor = array + 1
        total = Int(decoder.nodes[array].a)
    }

    var codingPath: [any CodingKey] { path.keys }
    var count: Int? { total }
    var isAtEnd: Bool { currentIndex >= total }

    private mutating func parentForElements() -> JSONPath {
        if let elementParent { return elementParent }
        let parent = JSONPath(parent: path.node(in: decoder.document), index: -1)
        elementParent = parent
        return parent
    }

    /// The current element, or Foundation's error at the end.
    @inline(__always)
    private func next(_ type: Any.Type, atEnd message: String = "Unkeyed container is at end.") throws -> Int {
        guard currentIndex < total else {
            throw DecodingError.valueNotFound(type, DecodingError.Context(
                codingPath: path.keys(appending: JSONIndexKey(currentIndex)), debugDescription: message))
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

    /// Decodes the current element with `decode` (given the element's tape index and its path) and advances.
    @inline(__always)
    private mutating func element<T>(_ type: Any.Type, _ decode: (Int, () -> [any CodingKey]) throws -> T) throws -> T {
        let path = path
        let index = currentIndex
        let value = try decode(try next(type)) { path.keys(appending: JSONIndexKey(index)) }
        advance()
        return value
    }

    /// The same for decodeIfPresent: nil at the end or for null, and advances either way.
    @inline(__always)
    private mutating func elementIfPresent<T>(_ decode: (Int, () -> [any CodingKey]) throws -> T) throws -> T? {
        let path = path
        let index = currentIndex
        let value = try present().map { try decode($0) { path.keys(appending: JSONIndexKey(index)) } }
        advance()
        return value
    }

    mutating func decodeNil() throws -> Bool {
        let i = try next(Never.self)
        guard decoder.isNull(i) else { return false }
        advance()
        return true
    }

    mutating func decode(_: Bool.Type) throws -> Bool { try element(Bool.self, decoder.decodeBool) }
    mutating func decode(_: String.Type) throws -> String { try element(String.self, decoder.decodeString) }
    mutating func decode(_: Double.Type) throws -> Double { try element(Double.self, decoder.decodeDouble) }
    mutating func decode(_: Float.Type) throws -> Float { try element(Float.self, decoder.decodeFloat) }
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
        let decoder = decoder
        return try element(T.self) { try decoder.decodeInteger(T.self, at: $0, path: $1) }
    }

    mutating func decode<T: Decodable>(_: T.Type) throws -> T {
        let i = try next(T.self)
        let value = try decoder.unwrap(T.self, at: i, parent: parentForElements(), key: JSONIndexKey(currentIndex))
        advance()
        return value
    }

    mutating func decodeIfPresent(_: Bool.Type) throws -> Bool? { try elementIfPresent(decoder.decodeBool) }
    mutating func decodeIfPresent(_: String.Type) throws -> String? { try elementIfPresent(decoder.decodeString) }
    mutating func decodeIfPresent(_: Double.Type) throws -> Double? { try elementIfPresent(decoder.decodeDouble) }
    mutating func decodeIfPresent(_: Float.Type) throws -> Float? { try elementIfPresent(decoder.decodeFloat) }
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
        let decoder = decoder
        return try elementIfPresent { try decoder.decodeInteger(T.self, at: $0, path: $1) }
    }

    mutating func decodeIfPresent<T: Decodable>(_: T.Type) throws -> T? {
        let decoder = decoder
        let path = parentForElements()
        let key = JSONIndexKey(currentIndex)
        return try elementIfPresent { i, _ in try decoder.unwrap(T.self, at: i, parent: path, key: key) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let i = try next(KeyedDecodingContainer<NestedKey>.self)
        let container = try decoder.keyedContainer(NestedKey.self, at: i, path: parentForElements().child(JSONIndexKey(currentIndex), in: decoder.document))
        advance()
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let i = try next((any UnkeyedDecodingContainer).self)
        let container = try decoder.unkeyedContainer(at: i, path: parentForElements().child(JSONIndexKey(currentIndex), in: decoder.document))
        advance()
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let i = try next((any Decoder).self, atEnd: "Cannot get superDecoder() -- unkeyed container is at end.")
        let superDecoder = JSONTapeDecoder(document: decoder.document, index: i,
                                           path: parentForElements().child(JSONIndexKey(currentIndex), in: decoder.document))
        advance()
        return superDecoder
    }
}
