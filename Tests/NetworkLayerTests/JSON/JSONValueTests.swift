import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// `JSONValue`: untyped JSON as a response type, in `params` and in `.json` bodies.
@Suite("Untyped JSON", .sharing)
struct JSONValueTests {
    /// The two decoders a response may go through: the library's own (a default `JSONDecoder`)
    /// and Foundation's (a decoder with an option the library's cannot stand in for).
    static func decodeBothWays(_ json: String) throws -> (fast: JSONValue, foundation: JSONValue) {
        let response = HTTPResponse(statusCode: 200, body: Data(json.utf8), url: URL(string: "http://127.0.0.1/")!)
        let foundation = JSONDecoder()
        foundation.dateDecodingStrategy = .secondsSince1970
        return (try response.decode(JSONValue.self), try response.decode(JSONValue.self, using: foundation))
    }

    @Test("A response decodes as JSONValue and is walked with subscripts (httpbin)")
    func responseFromHTTPBin() async throws {
        let httpbin = try await HTTPBinServer.shared()
        let request = TestRequest<JSONValue>(httpbin.provider(), "/anything/orders", method: .post)
        request.body = .json(["data": ["items": [["name": "Ada", "qty": 2], ["name": "Grace", "qty": 1]]]] as JSONValue)
        let any = try await Net.perform(request)
        #expect(any["method"]?.stringValue == "POST")
        #expect(any["json"]?["data"]?["items"]?[0]?["name"]?.stringValue == "Ada")
        #expect(any["json"]?["data"]?["items"]?[1]?["qty"]?.intValue == 1)
        #expect(any["json"]?["data"]?["items"]?[2] == nil)
        #expect(any["json"]?["missing"]?["deeper"] == nil)
        #expect(any["headers"]?["Content-Type"]?.stringValue == "application/json")
    }

    @Test("Objects, arrays, null, booleans, strings and nested values decode to their cases, with both decoders")
    func kinds() throws {
        let json = #"{"s": "tab\tquote\" é 🎸", "t": true, "f": false, "n": null, "a": [1, "x", [], {}], "o": {"p": {"q": [null]}}}"#
        let (fast, foundation) = try Self.decodeBothWays(json)
        #expect(fast == foundation)
        #expect(fast["s"] == .string("tab\tquote\" é 🎸"))
        #expect(fast["t"]?.boolValue == true)
        #expect(fast["f"]?.boolValue == false)
        #expect(fast["n"] == .null)
        #expect(fast["absent"] == nil)
        #expect(fast["a"] == .array([.number(1), .string("x"), .array([]), .object([:])]))
        #expect(fast["o"]?["p"]?["q"]?[0] == .null)
        #expect(fast["a"]?.arrayValue?.count == 4)
        #expect(fast.objectValue?.keys.sorted() == ["a", "f", "n", "o", "s", "t"])
    }

    @Test("Numbers: integers exact up to 2^53, fractions, exponents, negative zero")
    func numbers() throws {
        let json = "[0, -1, 9007199254740992, -9007199254740992, 0.1, -2.5, 1.5e-7, 1E+21, 6.02214076e23, -0.0, 5e-324, 1.7976931348623157e308]"
        let (fast, foundation) = try Self.decodeBothWays(json)
        #expect(fast == foundation)
        let numbers = try #require(fast.arrayValue).map(\.doubleValue)
        #expect(numbers == [0, -1, 9_007_199_254_740_992, -9_007_199_254_740_992, 0.1, -2.5, 1.5e-7, 1e21, 6.02214076e23, -0.0,
                            .leastNonzeroMagnitude, .greatestFiniteMagnitude])
        #expect(fast[2]?.intValue == 9_007_199_254_740_992)
        #expect(fast[3]?.intValue == -9_007_199_254_740_992)
        #expect(fast[1]?.intValue == -1)
        #expect(fast[4]?.intValue == nil)   // a fraction is not an Int
        #expect(fast[7]?.intValue == nil)   // 1e21 is beyond Int
        #expect(fast[9]?.doubleValue?.sign == .minus)
        #expect(fast[0]?.stringValue == nil && fast[0]?.boolValue == nil)
    }

    @Test("Hostile numbers: beyond Double's range is a clear error, longer than 2^53 is the nearest Double, never a trap")
    func hostileNumbers() throws {
        for json in ["[1e999]", "[-1e999]", "{\"a\": 1E400}"] {
            let response = HTTPResponse(statusCode: 200, body: Data(json.utf8), url: URL(string: "http://127.0.0.1/")!)
            #expect(throws: NetworkError.self) { try response.decode(JSONValue.self) }
        }
        let (fast, foundation) = try Self.decodeBothWays("[123456789012345678901234567890, 9007199254740993, -0]")
        #expect(fast == foundation)
        #expect(fast[0]?.doubleValue == 1.2345678901234568e29)
        #expect(fast[0]?.intValue == nil)
        #expect(fast[1]?.intValue == 9_007_199_254_740_992)   // 2^53 + 1 has no Double: the nearest is 2^53
        #expect(fast[2]?.intValue == 0)
    }

    @Test("Property: every integer within ±2^53 decodes exactly, with both decoders")
    func integersAreExact() throws {
        var random = SeededRandom(seed: 53)
        var samples: [Int64] = [1 << 53, -(1 << 53), (1 << 53) - 1, 0, 1, -1]
        for _ in 0..<500 { samples.append(Int64.random(in: -(1 << 53)...(1 << 53), using: &random)) }
        let (fast, foundation) = try Self.decodeBothWays("[" + samples.map(String.init).joined(separator: ",") + "]")
        #expect(fast == foundation)
        #expect(fast.arrayValue?.map(\.intValue) == samples.map { Int($0) })
    }

    @Test("Property: a random value encodes and decodes back to itself")
    func roundTrip() throws {
        var random = SeededRandom(seed: 2024)
        let encoder = JSONEncoder()
        for _ in 0..<300 {
            let value = JSONValue.random(depth: 4, using: &random)
            let data = try encoder.encode(value)
            let (fast, foundation) = try Self.decodeBothWays(String(decoding: data, as: UTF8.self))
            #expect(fast == value)
            #expect(foundation == value)
        }
    }

    @Test("Subscripts return nil for a missing key, an index out of range and a value of another kind")
    func subscriptsNeverTrap() {
        let value: JSONValue = ["list": [1, 2], "name": "Ada"]
        #expect(value["list"]?[-1] == nil)
        #expect(value["list"]?[2] == nil)
        #expect(value["list"]?[Int.max] == nil)
        #expect(value["list"]?["key"] == nil)
        #expect(value["name"]?[0] == nil)
        #expect(value[0] == nil)
        #expect(value["name"]?.intValue == nil)
        #expect(JSONValue.number(.infinity).intValue == nil)
        #expect(JSONValue.number(.nan).intValue == nil)
        #expect(JSONValue.number(1e300).intValue == nil)
    }

    @Test("As a response type the body is read as sent: the provider's key strategy does not rename its keys")
    func keysAsSent() async throws {
        let server = try await TestServer.shared()
        let any = try await Net.perform(TestRequest<JSONValue>(ShopProvider(port: server.port), bodyEndpoint(#"{"created_at": 1, "data": {"item_id": 7}}"#)))
        #expect(any["created_at"]?.intValue == 1)
        #expect(any["data"]?["item_id"]?.intValue == 7)
        let request = TestRequest<JSONValue>(ShopProvider(port: server.port), bodyEndpoint(#"{"data": {"item_list": [{"a": 1}]}}"#))
        request.keyPath = "data.item_list"
        #expect(try await Net.perform(request) == [["a": 1]])
    }

    @Test("A body that is not JSON is .serialization")
    func invalidJSON() async throws {
        let server = try await TestServer.shared()
        let error = await networkError { try await Net.perform(TestRequest<JSONValue>(server.provider(), bodyEndpoint("{\"a\": [1, 2"))) }
        #expect(error?.caseName == "serialization")
    }

    @Test("Deeply nested JSON decodes within the decoder's depth limit and is .serialization beyond it, never a crash")
    func deepNesting() async throws {
        let server = try await TestServer.shared()
        let deep = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        let value = try await Net.perform(TestRequest<JSONValue>(server.provider(), bodyEndpoint(deep)))
        var depth = 0
        var current: JSONValue? = value
        while let array = current?.arrayValue { depth += 1; current = array.first }
        #expect(depth == 500)
        let tooDeep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let response = HTTPResponse(statusCode: 200, body: Data(tooDeep.utf8), url: URL(string: "http://127.0.0.1/")!)
        #expect(throws: NetworkError.self) { try response.decode(JSONValue.self) }
    }

    @Test("In params: a query for GET (brackets for objects), JSON for POST")
    func inParams() async throws {
        let server = try await TestServer.shared()
        let filter: JSONValue = ["year": 1992, "genre": "prog", "live": false, "tags": ["a", "b"], "none": .null]
        let query = try await Net.perform(TestRequest<Echo>(server.provider(), "/echo", params: ["filter": filter, "price": JSONValue.number(9.99)]))
        #expect(query.query == "filter%5Bgenre%5D=prog&filter%5Blive%5D=false&filter%5Btags%5D=a&filter%5Btags%5D=b&filter%5Byear%5D=1992&price=9.99")
        let posted = try await Net.perform(TestRequest<Echo>(server.provider(), "/echo", method: .post, params: ["filter": filter]))
        #expect(posted.body == #"{"filter":{"genre":"prog","live":false,"none":null,"tags":["a","b"],"year":1992}}"#)
        let notFinite = await networkError {
            try await Net.perform(TestRequest<Echo>(server.provider(), "/echo", params: ["x": ["n": JSONValue.number(.nan)] as JSONValue]))
        }
        #expect(notFinite?.caseName == "invalidRequest")
        #expect(notFinite?.errorDescription?.contains("params.x.n") == true)
    }

    @Test("As a .json body it is sent as the JSON it stands for, and a random value survives the trip through a server")
    func inBodies() async throws {
        let server = try await TestServer.shared()
        var random = SeededRandom(seed: 7)
        for _ in 0..<25 {
            let value = JSONValue.random(depth: 3, using: &random)
            let request = TestRequest<Echo>(server.provider(), "/echo", method: .post)
            request.body = .json(value)
            let echo = try await Net.perform(request)
            #expect(echo.header("Content-Type") == "application/json")
            #expect(try JSONDecoder().decode(JSONValue.self, from: Data(echo.body.utf8)) == value)
        }
        let literal = TestRequest<Echo>(server.provider(), "/echo", method: .post)
        literal.body = .json(object: ["payload": ["a": [1, 2.5, "x"]] as JSONValue])
        #expect(try await Net.perform(literal).body == #"{"payload":{"a":[1,2.5,"x"]}}"#)
    }

    @Test("Its description is compact JSON with sorted keys")
    func description() {
        let value: JSONValue = ["b": [1, 2.5, true, .null], "a": "x/y"]
        #expect(value.description == #"{"a":"x/y","b":[1,2.5,true,null]}"#)
    }
}
