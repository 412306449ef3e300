import Foundation

/// A JSON decoder that gives the same results as a default `JSONDecoder()`: the same values and
/// the same errors (case, type, coding path, description).
///
/// One pass over the bytes builds a tape of 12-byte nodes (`JSONDocument`), once the type asks
/// for what the document holds (`JSONTopLevelDecoder`); containers walk it,
/// find keys by comparing bytes, and parse numbers and strings from the bytes when asked. Foundation
/// is consulted for what is rare (see `FoundationJSON`): numbers an integer type only accepts in
/// Foundation's own way (`1.0`, `1e2`), `Decimal`, base64 `Data`, and every malformed number or
/// string, so those answers are Foundation's own.
///
/// Use it only in place of a decoder for which ``canStandIn(for:)`` is true: any other options
/// (date, data, key or float strategies, `userInfo`, JSON5) change what decoding means.
package enum FastJSONDecoder {
    /// Decodes `type` from `data` exactly as `JSONDecoder().decode(type, from: data)` does.
    ///
    /// Memory: a copy of the body and the tape (12 bytes a value, only what the document fills);
    /// a type that does not fit the top-level value costs the copy and a check of the bytes,
    /// never a tape (`JSONTopLevelDecoder`).
    package static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        guard case .document(let document) = JSONDocument.prepare(data) else {
            return try FoundationJSON.decoder.decode(T.self, from: data)
        }
        do {
            if let kind = document.announcedKind, kind == .object || kind == .array {
                let topLevel = JSONTopLevelDecoder(document: document, kind: kind)
                let result = Result { try topLevel.unwrap(T.self) }
                switch topLevel.finish() {
                case .valid: return try result.get()
                case .invalid: throw FoundationJSON.invalidJSON
                case .unsupported: return try FoundationJSON.decoder.decode(T.self, from: data)
                }
            }
            switch document.scan() {
            case .valid: break
            case .invalid: throw FoundationJSON.invalidJSON
            case .unsupported: return try FoundationJSON.decoder.decode(T.self, from: data)
            }
            let decoder = JSONTapeDecoder(document: document, index: 0, path: .root)
            return try decoder.unwrap(T.self, at: 0, parent: .root, key: JSONNoKey())
        } catch {
            // Foundation's parser errors surface as one top-level `dataCorrupted`, as in `JSONDecoder`.
            if FoundationJSON.isParserError(error) { throw FoundationJSON.invalidJSON }
            throw error
        }
    }

    /// Decodes with this decoder when `decoder` is a plain `JSONDecoder` with default options,
    /// else with `decoder` itself.
    package static func decode<T: Decodable>(_ type: T.Type, from data: Data, standingInFor decoder: JSONDecoder) throws -> T {
        try canStandIn(for: decoder) ? decode(T.self, from: data) : decoder.decode(T.self, from: data)
    }

    /// Whether this decoder gives the same results as `decoder`: a `JSONDecoder` (not a subclass,
    /// which may override `decode`) with every option at its default.
    package static func canStandIn(for decoder: JSONDecoder) -> Bool {
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
