import Foundation

/// The decoder a type is handed first when the document is an object or an array: it builds the
/// tape only when the type asks for what the document holds, so that a type that does not fit at
/// the top level (an object type asked of a 50 MB array) costs a check of the bytes, never a tape.
///
/// Foundation parses the whole document before the type sees it, so a mismatch is `typeMismatch`
/// for valid JSON and `dataCorrupted` otherwise. So here a request that does not fit first checks
/// the document (`JSONDocument.validate()`), then throws the tape decoder's error at the root; an
/// invalid document fails with `dataCorrupted` whatever the type did (`finish()`). A request that
/// fits builds the tape once and hands every later request to the tape decoder.
final class JSONTopLevelDecoder: Decoder, SingleValueDecodingContainer {
    private let document: JSONDocument
    /// `.object` or `.array`, as the document's first byte announces it.
    private let kind: JSONNodeKind
    /// The tape decoder at the root, once a request needed the tape.
    private var tape: JSONTapeDecoder?
    /// What checking or scanning the whole document found, once either ran.
    private var verdict: JSONDocument.ScanResult?

    init(document: JSONDocument, kind: JSONNodeKind) {
        self.document = document
        self.kind = kind
    }

    /// Thrown when there is no memory for the tape: `FastJSONDecoder` then lets Foundation decode.
    struct NoMemoryForTape: Error {}

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// What the decode's outcome rests on: whether the document is valid JSON (checked now if no
    /// request has needed it; Foundation checks it before any type sees the document).
    func finish() -> JSONDocument.ScanResult {
        if let verdict { return verdict }
        let checked = document.validate()
        verdict = checked
        return checked
    }

    /// The tape decoder at the root, building the tape the first time.
    private func tapeDecoder() throws -> JSONTapeDecoder {
        if let tape { return tape }
        let scanned = document.scan()
        verdict = scanned
        switch scanned {
        case .valid:
            let decoder = JSONTapeDecoder(document: document, index: 0, path: .root)
            tape = decoder
            return decoder
        case .invalid:
            throw FoundationJSON.invalidJSON
        case .unsupported:
            throw NoMemoryForTape()
        }
    }

    /// The error for a request of `type` that the top-level container does not fit: the tape
    /// decoder's `typeMismatch` at the root when the document is valid JSON, else Foundation's
    /// `dataCorrupted`.
    private func mismatch(_ type: Any.Type) -> any Error {
        switch finish() {
        case .valid, .unsupported: // `validate()` needs no memory, so never answers `.unsupported`
            JSONTapeDecoder.typeMismatch(type, JSONNode(header: kind.rawValue, a: 0, b: 0), [])
        case .invalid:
            FoundationJSON.invalidJSON
        }
    }

    /// Decodes `T` at the root, as `JSONTapeDecoder.unwrap` does there.
    func unwrap<T: Decodable>(_: T.Type) throws -> T {
        // The types the tape decoder decodes without their initializer: strings, numbers and
        // booleans never fit a container; arrays of them fit only an array.
        if T.self == String.self || T.self == Int.self || T.self == Double.self || T.self == Bool.self {
            throw mismatch(T.self)
        }
        if T.self == [String].self || T.self == [Int].self || T.self == [Double].self || T.self == [Bool].self
            || T.self == Data.self || T.self == Date.self || T.self == URL.self || T.self == Decimal.self {
            if kind == .object, T.self != Data.self, T.self != Date.self, T.self != URL.self, T.self != Decimal.self {
                throw mismatch([Any].self)
            }
            return try tapeDecoder().unwrap(T.self, at: 0, parent: .root, key: JSONNoKey())
        }
        if let tape { return try tape.unwrap(T.self, at: 0, parent: .root, key: JSONNoKey()) }
        return try T(from: self)
    }

    // MARK: Decoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard kind == .object else { throw mismatch([String: Any].self) }
        return try tapeDecoder().container(keyedBy: Key.self)
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard kind == .array else { throw mismatch([Any].self) }
        return try tapeDecoder().unkeyedContainer()
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    // MARK: SingleValueDecodingContainer (a container is never null, nor any primitive)

    func decodeNil() -> Bool { false }
    func decode(_: Bool.Type) throws -> Bool { throw mismatch(Bool.self) }
    func decode(_: String.Type) throws -> String { throw mismatch(String.self) }
    func decode(_: Double.Type) throws -> Double { throw mismatch(Double.self) }
    func decode(_: Float.Type) throws -> Float { throw mismatch(Float.self) }
    func decode(_: Int.Type) throws -> Int { throw mismatch(Int.self) }
    func decode(_: Int8.Type) throws -> Int8 { throw mismatch(Int8.self) }
    func decode(_: Int16.Type) throws -> Int16 { throw mismatch(Int16.self) }
    func decode(_: Int32.Type) throws -> Int32 { throw mismatch(Int32.self) }
    func decode(_: Int64.Type) throws -> Int64 { throw mismatch(Int64.self) }
    func decode(_: Int128.Type) throws -> Int128 { throw mismatch(Int128.self) }
    func decode(_: UInt.Type) throws -> UInt { throw mismatch(UInt.self) }
    func decode(_: UInt8.Type) throws -> UInt8 { throw mismatch(UInt8.self) }
    func decode(_: UInt16.Type) throws -> UInt16 { throw mismatch(UInt16.self) }
    func decode(_: UInt32.Type) throws -> UInt32 { throw mismatch(UInt32.self) }
    func decode(_: UInt64.Type) throws -> UInt64 { throw mismatch(UInt64.self) }
    func decode(_: UInt128.Type) throws -> UInt128 { throw mismatch(UInt128.self) }

    func decode<T: Decodable>(_: T.Type) throws -> T {
        try unwrap(T.self)
    }
}
