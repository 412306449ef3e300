import Foundation

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
