import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// JSON bodies from an `Encodable` are the same bytes every time: the provider's default encoder
/// writes keys sorted (issue 28: Foundation's encoder on Linux wrote `{"name":…,"age":…}` in one
/// run and `{"age":…,"name":…}` in the next). An encoder of the user's own is used as it is.
@Suite("JSON body key order", .sharing)
struct JSONBodyKeyOrderTests {
    /// Many keys, declared out of order, one of them an object with keys of its own.
    struct WideRecord: Encodable, Sendable {
        struct Address: Encodable, Sendable {
            var street = "Rue de la Paix"
            var city = "Paris"
            var zip = "75002"
            var country = "FR"
        }
        var zulu = 26
        var name = "Ada"
        var age = 36
        var mike = true
        var bravo = "b"
        var yankee = 25.5
        var echo = ["e", "f"]
        var address = Address()
        var kilo: String?
        var alpha = 1
        var tango = "t"
        var charlie = "c"
        var xray = 24
        var delta = "d"
        var papa = 16
        var golf = "g"
        var hotel = 8
        var india = "i"
        var lima = 12
        var oscar = "o"
    }

    /// Where each key of `keys` starts in `text`, in the order of `keys`; fails when one is missing.
    static func positions(of keys: [String], in text: String) -> [String.Index] {
        keys.compactMap { key in
            let found = text.range(of: "\"\(key)\":")?.lowerBound
            if found == nil { Issue.record("\(key) is not in \(text)") }
            return found
        }
    }

    @Test("A body encoded 100 times with the default encoder reaches the server as the same bytes, every object's keys sorted")
    func defaultEncoderSortsKeys() async throws {
        let server = try await TestServer.shared()
        let net = makeManager()
        var received: Set<String> = []
        for _ in 0..<100 {
            // Both ways of getting the default: the provider's encoder, and `.json` without an encoder.
            let echo = try await net.perform(BodyRequest<Echo>(server.provider(), "/echo", body: .json(WideRecord())))
            received.insert(echo.body)
        }
        #expect(received.count == 1, "the bodies differed: \(received)")
        let body = try #require(received.first)
        let top = ["address", "age", "alpha", "bravo", "charlie", "delta", "echo", "golf", "hotel", "india", "lima",
                   "mike", "name", "oscar", "papa", "tango", "xray", "yankee", "zulu"]
        let topPositions = Self.positions(of: top, in: body)
        #expect(topPositions == topPositions.sorted(), "keys out of order: \(body)")
        let nested = Self.positions(of: ["city", "country", "street", "zip"], in: body)
        #expect(nested == nested.sorted(), "the nested object's keys out of order: \(body)")
        #expect(!body.contains("kilo"), "nil is left out, as JSONEncoder does")
        // Nothing else changed: the bytes are what a JSONEncoder with only .sortedKeys writes.
        let plainSorted = JSONEncoder()
        plainSorted.outputFormatting = .sortedKeys
        #expect(body == String(decoding: try plainSorted.encode(WideRecord()), as: UTF8.self))
    }

    @Test("An encoder of the user's own is used as given, its formatting untouched")
    func ownEncoderAsGiven() async throws {
        let server = try await TestServer.shared()
        let pretty = JSONEncoder()
        pretty.outputFormatting = .prettyPrinted
        let echo = try await makeManager().perform(BodyRequest<Echo>(server.provider(), "/echo",
                                                                     body: .json(["city": "Paris"], encoder: pretty)))
        #expect(echo.body == "{\n  \"city\" : \"Paris\"\n}")
        #expect(pretty.outputFormatting == .prettyPrinted)
    }
}
