import Foundation
import Testing
@testable import NetworkLayer

/// `params` of POST, PUT, PATCH and DELETE requests become a JSON body with
/// `Content-Type: application/json`. `/echo` sends back the exact bytes it received.
@Suite("Body encoding")
struct BodyEncodingTests {
    static let bodyMethods: [HTTPMethod] = [.post, .put, .patch, .delete]

    /// The body the server received, as bytes.
    private func receivedBody(_ echo: Echo) throws -> Data {
        try #require(Data(base64Encoded: echo.bodyBase64))
    }

    /// The body the server received, parsed back as a JSON object.
    private func receivedJSON(_ echo: Echo) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: receivedBody(echo), options: [.fragmentsAllowed])
        return try #require(object as? [String: Any])
    }

    @Test("Params travel as a JSON body with Content-Type application/json, not in the query", arguments: bodyMethods)
    func paramsBecomeAJSONBody(_ method: HTTPMethod) async throws {
        let server = try await TestServer.shared()
        let echo = try await Net.perform(TestRequest<Echo>(server.provider(), "/echo", method: method, params: [
            "name": "Dream Théâtre ✓",
            "limit": 3,
            "price": 9.99,
            "explicit": true,
            "tags": ["a b", "c&d"],
            "filter": ["year": 1992],
            "missing": String?.none,
            "tricky": "quote \" backslash \\ slash / newline \n nul \u{0} bell \u{7}",
        ]))
        #expect(echo.method == method.rawValue)
        #expect(echo.query == "")
        #expect(echo.header("Content-Type") == "application/json")

        let json = try receivedJSON(echo)
        #expect(Set(json.keys) == ["name", "limit", "price", "explicit", "tags", "filter", "missing", "tricky"])
        #expect(json["name"] as? String == "Dream Théâtre ✓")
        #expect((json["limit"] as? NSNumber)?.intValue == 3)
        #expect((json["price"] as? NSNumber)?.doubleValue == 9.99)
        #expect((json["explicit"] as? NSNumber) == NSNumber(value: true))
        #expect(json["tags"] as? [String] == ["a b", "c&d"])
        #expect((json["filter"] as? [String: Any])?["year"] as? Int == 1992)
        #expect(json["missing"] is NSNull)
        #expect(json["tricky"] as? String == "quote \" backslash \\ slash / newline \n nul \u{0} bell \u{7}")
    }

    @Test("The JSON is compact, keys sorted at every level, numbers without float noise, / and non-ASCII unescaped")
    func exactBytes() async throws {
        let server = try await TestServer.shared()
        let echo = try await Net.perform(TestRequest<Echo>(server.provider(), "/echo", method: .post, params: [
            "b": 2,
            "a": "x/y \"q\" é",
            "d": ["z": 1, "y": Float(0.1), "x": 3.0] as [String: any Sendable],
            "c": [true, false],
            "e": Int64.max,
            "f": -9.99,
            "g": String?.none,
        ]))
        let expected = #"{"a":"x/y \"q\" é","b":2,"c":[true,false],"d":{"x":3,"y":0.1,"z":1},"e":9223372036854775807,"f":-9.99,"g":null}"#
        #expect(try receivedBody(echo) == Data(expected.utf8))
        #expect(echo.bodyLength == expected.utf8.count)
    }

    @Test("A Content-Type the request sets is kept, and sent once", arguments: ["Content-Type", "content-type", "CONTENT-TYPE"])
    func userContentTypeKept(_ name: String) async throws {
        let server = try await TestServer.shared()
        let echo = try await Net.perform(TestRequest<Echo>(server.provider(), "/echo", method: .post,
                                                           params: ["k": "v"],
                                                           headers: [name: "application/vnd.api+json"]))
        let contentTypes = echo.headerList.filter { $0.first?.lowercased() == "content-type" }
        #expect(contentTypes.map { $0.last } == ["application/vnd.api+json"])
        #expect(try receivedBody(echo) == Data(#"{"k":"v"}"#.utf8))
    }

    @Test("A Content-Type the provider sets is kept too")
    func providerContentTypeKept() async throws {
        let server = try await TestServer.shared()
        let provider = server.provider(headers: ["Content-Type": "application/json; charset=utf-8"])
        let echo = try await Net.perform(TestRequest<Echo>(provider, "/echo", method: .put, params: ["k": 1]))
        let contentTypes = echo.headerList.filter { $0.first?.lowercased() == "content-type" }
        #expect(contentTypes.map { $0.last } == ["application/json; charset=utf-8"])
    }

    @Test("Empty params send an empty body, not a JSON document", arguments: bodyMethods)
    func emptyParamsEmptyBody(_ method: HTTPMethod) async throws {
        let server = try await TestServer.shared()
        let echo = try await Net.perform(TestRequest<Echo>(server.provider(), "/echo", method: method))
        #expect(echo.method == method.rawValue)
        #expect(echo.bodyLength == 0)
        #expect(echo.header("Content-Type") != "application/json")
        #expect(echo.query == "")
    }

    @Test("A body endpoint that has its own query keeps it, and params still go to the body")
    func endpointQueryKeptWithBody() async throws {
        let server = try await TestServer.shared()
        let echo = try await Net.perform(TestRequest<Echo>(server.provider(), "/echo?version=2", method: .patch,
                                                           params: ["k": "v"]))
        #expect(echo.query == "version=2")
        #expect(try receivedBody(echo) == Data(#"{"k":"v"}"#.utf8))
    }
}
