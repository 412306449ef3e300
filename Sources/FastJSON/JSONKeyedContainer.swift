import Foundation

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
