import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// `params` of POST, PUT, PATCH and DELETE requests become a JSON body with
/// `Content-Type: application/json` (or, with `parameterEncoding`, a form body or the query).
/// `/echo` sends back the exact bytes it received. Bodies given explicitly (`body:`) are
/// ``RequestBodyTests``; params in the query of GET, HEAD and OPTIONS are ``QueryEncodingTests``.
@Suite("Params sent as the body", .sharing)
struct ParamsBodyTests {
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

    @Test("A Content-Type the request sets is kept, and sent once",
          arguments: ["Content-Type", "content-type", "CONTENT-TYPE"])
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

    @Test("parameterEncoding chooses per request where params go: a form body, the query or a JSON body",
          arguments: [(ParameterEncoding.form, HTTPMethod.post, "", "a=1&b=x%20y", "application/x-www-form-urlencoded" as String?),
                      (.query, .post, "a=1&b=x%20y", "", nil),
                      (.json, .get, "", #"{"a":1,"b":"x y"}"#, "application/json"),
                      (.json, .delete, "", #"{"a":1,"b":"x y"}"#, "application/json")])
    func parameterEncodingCanBeChosenPerRequest(encoding: ParameterEncoding, method: HTTPMethod, query: String,
                                                body: String, contentType: String?) async throws {
        try await withTestServer { server in
            let request = TestRequest<Echo>(server.provider(), "/echo", method: method, params: ["a": 1, "b": "x y"])
            request.parameterEncoding = encoding
            let echo = try await makeManager().perform(request)
            #expect(echo.method == method.rawValue)
            #expect(echo.query == query)
            #expect(echo.body == body)
            #expect(echo.header("Content-Type") == contentType)
        }
    }

    @Test("Booleans, integers, doubles, dates, decimals and nil encode predictably in the query and in JSON")
    func scalarsEncodePredictably() async throws {
        try await withTestServer { server in
            let date = Date(timeIntervalSince1970: 1_700_000_000)
            let optional: String? = nil
            let query = try await makeManager().perform(TestRequest<Echo>(server.provider(), "/echo",
                params: ["t": true, "f": false, "i": -42, "d": 9.99, "w": 3.0, "date": date, "none": optional,
                         "big": UInt64.max, "dec": Decimal(string: "1.10")!]))
            #expect(query.query == "big=18446744073709551615&d=9.99&date=2023-11-14T22%3A13%3A20Z&dec=1.1&f=false&i=-42&t=true&w=3")
            let json = try await makeManager().perform(TestRequest<Echo>(server.provider(), "/echo", method: .post,
                params: ["t": true, "i": -42, "d": 9.99, "date": date, "none": optional]))
            #expect(json.body == #"{"d":9.99,"date":"2023-11-14T22:13:20Z","i":-42,"none":null,"t":true}"#)
        }
    }
}
