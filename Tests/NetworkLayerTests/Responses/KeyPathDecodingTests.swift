import FastJSON
import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

@Suite("Decoding at a key path", .sharing)
struct KeyPathDecodingTests {
    /// A value or an error, as a caller can observe it: the error's case and coding path.
    private static func outcome<T: Decodable & Equatable>(_ decode: () throws -> KeyPathDecoding.Value<T>) -> String {
        do {
            return "value \(try decode().value)"
        } catch let error as DecodingError {
            let (kind, context): (String, DecodingError.Context) = switch error {
            case .typeMismatch(let type, let c): ("typeMismatch \(type)", c)
            case .valueNotFound(let type, let c): ("valueNotFound \(type)", c)
            case .keyNotFound(let key, let c): ("keyNotFound \(key.stringValue)", c)
            case .dataCorrupted(let c): ("dataCorrupted", c)
            @unknown default: ("unknown", DecodingError.Context(codingPath: [], debugDescription: ""))
            }
            return "\(kind) at \(context.codingPath.map(\.stringValue)): \(context.debugDescription)"
        } catch {
            return "\(type(of: error))"
        }
    }

    private static func expectSame<T: Decodable & Equatable>(_ type: T.Type, _ body: String, keyPath: String,
                                                             sourceLocation: SourceLocation = #_sourceLocation) {
        let data = Data(body.utf8)
        KeyPathDecoding.$keyPath.withValue(keyPath) {
            let fast = outcome { try FastJSONDecoder.decode(KeyPathDecoding.Value<T>.self, from: data) }
            let foundation = outcome { try JSONDecoder().decode(KeyPathDecoding.Value<T>.self, from: data) }
            #expect(fast == foundation, "\(T.self) at \(keyPath)", sourceLocation: sourceLocation)
        }
    }

    @Test("The library's decoder gives Foundation's values and errors at every key path")
    func matchesFoundation() {
        struct Inner: Decodable, Equatable { let id: Int }
        let body = #"{"data":{"items":[{"id":1},{"id":2}],"count":2,"empty":null}}"#
        for keyPath in ["data.items", "data.count", "data", "data.missing", "missing.items", "data.count.x", "data.empty", "data.empty.x"] {
            Self.expectSame([Inner].self, body, keyPath: keyPath)
            Self.expectSame(Int.self, body, keyPath: keyPath)
            Self.expectSame(Int?.self, body, keyPath: keyPath)
        }
    }
}
