import Foundation

// MARK: - Decoder

/// The `Decoder` (and single-value container) over a tape. Like Foundation's, one instance serves a
/// whole decode: it points at the value being decoded and is re-pointed while nested values decode.
final class JSONTapeDecoder: Decoder, SingleValueDecodingContainer {
    let document: JSONDocument
    let bytes: UnsafePointer<UInt8>
    let nodes: UnsafePointer<JSONNode>
    // Re-pointed for each nested value, never while another access is in progress: unchecked.
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
    ///
    /// Each `unsafeBitCast` below converts a value to `T` right after checking that `T` is exactly
    /// the value's type (`T.self == String.self`, …): an identity conversion, which cannot fail.
    /// It stays an `unsafeBitCast`, not an `as? T`, because this is the hottest path and an
    /// unspecialised `as?` costs a dynamic cast.
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
            if let url = url as? T { return url } // T is URL, so this always returns
            return try nested(at: i, path: parent.child(key, in: document)) { try T(from: self) }
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
