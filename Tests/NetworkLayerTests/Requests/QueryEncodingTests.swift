import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// `params` of GET, HEAD and OPTIONS requests become the query, percent-encoded per RFC 3986.
/// `/echo` reports both the raw query text it received and Python's decoding of it (`args`).
@Suite("Query encoding", .sharing)
struct QueryEncodingTests {
    static let trickyValues = [
        "a b", "a&b", "a=b", "a+b", "a#b", "a/b", "a?b", "100%", "%20 is not a space", "a;b,c:d@e$f!g'h(i)j*k",
        "[x]", "~-._", "Dream Théâtre ✓", "日本語", "🎸 prog", "line\nbreak\ttab", "", "a b&c=d+e#f/g?h%i",
    ]

    @Test("A value with reserved or non-ASCII characters reaches the server unchanged", arguments: trickyValues)
    func valueRoundTrips(_ value: String) async throws {
        let server = try await TestServer.shared()
        let echo = try await Net.perform(TestRequest<Echo>(server.provider(), "/echo", params: ["v": value]))
        #expect(echo.args["v"] == [value])
        #expect(echo.args.count == 1)
    }

    @Test("A key with reserved or non-ASCII characters reaches the server unchanged",
          arguments: trickyValues.filter { !$0.isEmpty })
    func keyRoundTrips(_ key: String) async throws {
        let server = try await TestServer.shared()
        let echo = try await Net.perform(TestRequest<Echo>(server.provider(), "/echo", params: [key: "value"]))
        #expect(echo.args == [key: ["value"]])
    }

    @Test("Everything but A-Z a-z 0-9 - . _ ~ is percent-encoded: space is %20, + is %2B, UTF-8 bytes in upper-case hex")
    func rawQueryText() async throws {
        let server = try await TestServer.shared()
        let echo = try await Net.perform(TestRequest<Echo>(server.provider(), "/echo", params: [
            "q": "a b+c&d=e#f/g?h%i~-._",
            "name": "Dream Théâtre ✓",
        ]))
        #expect(echo.query == "name=Dream%20Th%C3%A9%C3%A2tre%20%E2%9C%93&q=a%20b%2Bc%26d%3De%23f%2Fg%3Fh%25i~-._")
    }

    @Test("Keys are sent in sorted order, so the same params always give the same URL")
    func keysSorted() async throws {
        let server = try await TestServer.shared()
        let echo = try await Net.perform(TestRequest<Echo>(server.provider(), "/echo",
                                                           params: ["c": "3", "a": "1", "b": "2"]))
        #expect(echo.query == "a=1&b=2&c=3")
    }

    @Test("An array repeats its key once per element, in order; an empty array sends nothing")
    func arraysRepeatTheKey() async throws {
        let server = try await TestServer.shared()
        let echo = try await Net.perform(TestRequest<Echo>(server.provider(), "/echo", params: [
            "tag": ["rock", "prog metal", "rock"], "none": [String](),
        ]))
        #expect(echo.args["tag"] == ["rock", "prog metal", "rock"])
        #expect(echo.args["none"] == nil)
        #expect(echo.query == "tag=rock&tag=prog%20metal&tag=rock")
    }

    @Test("Booleans are sent as true and false")
    func booleans() async throws {
        let server = try await TestServer.shared()
        let echo = try await Net.perform(TestRequest<Echo>(server.provider(), "/echo",
                                                           params: ["yes": true, "no": false]))
        #expect(echo.query == "no=false&yes=true")
    }

    @Test("Numbers are sent in their shortest exact form, without float noise")
    func numbers() async throws {
        let server = try await TestServer.shared()
        let echo = try await Net.perform(TestRequest<Echo>(server.provider(), "/echo", params: [
            "price": 9.99,
            "whole": 3.0,
            "float": Float(0.1),
            "negative": -42,
            "negativeDouble": -0.5,
            "int64Max": Int64.max,
            "int64Min": Int64.min,
            "uint64Max": UInt64.max,
            "zero": 0.0,
            "int8": Int8(-8),
        ]))
        #expect(echo.args["price"] == ["9.99"])
        #expect(echo.args["whole"] == ["3"])
        #expect(echo.args["float"] == ["0.1"])
        #expect(echo.args["negative"] == ["-42"])
        #expect(echo.args["negativeDouble"] == ["-0.5"])
        #expect(echo.args["int64Max"] == ["9223372036854775807"])
        #expect(echo.args["int64Min"] == ["-9223372036854775808"])
        #expect(echo.args["uint64Max"] == ["18446744073709551615"])
        #expect(echo.args["zero"] == ["0"])
        #expect(echo.args["int8"] == ["-8"])
    }

    @Test("A nested dictionary is sent with bracketed keys: a[b]=c, a[b][c]=d")
    func nestedDictionaries() async throws {
        let server = try await TestServer.shared()
        let echo = try await Net.perform(TestRequest<Echo>(server.provider(), "/echo", params: [
            // A nested literal mixing value types needs its type spelled out: Swift would
            // infer [String: Any], which is not Sendable.
            "filter": ["year": 1992, "genre": "prog metal"] as [String: any Sendable],
            "a": ["b": ["c": "d"]],
            "list": ["ids": [1, 2]],
        ]))
        #expect(echo.args == [
            "filter[year]": ["1992"], "filter[genre]": ["prog metal"],
            "a[b][c]": ["d"],
            "list[ids]": ["1", "2"],
        ])
        #expect(echo.query.contains("filter%5Bgenre%5D=prog%20metal&filter%5Byear%5D=1992"))
    }

    @Test("A nil value leaves its key out; an Optional holding a value sends the value")
    func nilLeavesTheKeyOut() async throws {
        let server = try await TestServer.shared()
        let echo = try await Net.perform(TestRequest<Echo>(server.provider(), "/echo", params: [
            "present": "yes",
            "absent": String?.none,
            "wrapped": String?.some("inside"),
            "nested": ["gone": Int?.none, "kept": 1] as [String: any Sendable],
        ]))
        #expect(echo.args == ["present": ["yes"], "wrapped": ["inside"], "nested[kept]": ["1"]])
        #expect(!echo.query.contains("absent"))
        #expect(!echo.query.contains("gone"))
    }

    @Test("Params are appended with & to a query the endpoint already has")
    func appendedToAnExistingQuery() async throws {
        let server = try await TestServer.shared()
        let echo = try await Net.perform(TestRequest<Echo>(server.provider(), "/echo?country=it&x=a%20b",
                                                           params: ["term": "Dream Theater"]))
        #expect(echo.path == "/echo")
        #expect(echo.query == "country=it&x=a%20b&term=Dream%20Theater")
        #expect(echo.args == ["country": ["it"], "x": ["a b"], "term": ["Dream Theater"]])
    }

    // A fragment is never sent in HTTP; params appended after it would vanish without a word.
    // Either way of fixing it passes: the params arrive, or the request is refused.
    @Test("Params are never silently lost when the endpoint has a #fragment")
    func fragmentDoesNotSwallowParams() async throws {
        let server = try await TestServer.shared()
        do {
            let echo = try await Net.perform(TestRequest<Echo>(server.provider(), "/echo#section", params: ["q": "1"]))
            #expect(echo.path == "/echo")
            #expect(echo.args["q"] == ["1"], "the params were dropped: query \"\(echo.query)\"")
        } catch {
            #expect(error.caseName == "invalidRequest", "\(error)")
        }
    }

    @Test("No params, no query: the URL carries no trailing ?")
    func noParamsNoQuery() async throws {
        try await withTestServer(record: true) { server in
            let echo = try await Net.perform(TestRequest<Echo>(server.provider(), "/echo"))
            #expect(echo.query == "")
            let received = String(decoding: server.recordedBytes(), as: UTF8.self)
            #expect(received.hasPrefix("GET /echo HTTP/1.1\r\n"))
        }
    }

    @Test("GET sends params in the query and no body, and declares no Content-Type")
    func getSendsNoBody() async throws {
        let server = try await TestServer.shared()
        let echo = try await Net.perform(TestRequest<Echo>(server.provider(), "/echo", params: ["q": "1"]))
        #expect(echo.method == "GET")
        #expect(echo.bodyLength == 0)
        #expect(echo.header("Content-Type") == nil)
    }

    // HEAD has no body to decode, so the request asks for a `RawResponse`, which the
    // `RawResponseProvider` builds from the status and headers; the request line the server
    // received is read from its recording.
    @Test("HEAD sends params in the query and gets the headers without a body")
    func headSendsParamsInTheQuery() async throws {
        try await withTestServer(record: true) { server in
            let request = TestRequest<RawResponse>(server.rawProvider(), "/echo", method: .head,
                                                   params: ["q": "a b+c", "n": 3])
            let response = try await Net.perform(request)
            #expect(response.statusCode == 200)
            #expect(response.body.isEmpty)
            #expect(response.contentType?.hasPrefix("application/json") == true)
            let received = String(decoding: server.recordedBytes(), as: UTF8.self)
            #expect(received.hasPrefix("HEAD /echo?n=3&q=a%20b%2Bc HTTP/1.1\r\n"))
        }
    }

    @Test("OPTIONS sends params in the query")
    func optionsSendsParamsInTheQuery() async throws {
        let server = try await TestServer.shared()
        let echo = try await Net.perform(TestRequest<Echo>(server.provider(), "/echo", method: .options,
                                                           params: ["q": "a&b"]))
        #expect(echo.method == "OPTIONS")
        #expect(echo.args == ["q": ["a&b"]])
        #expect(echo.bodyLength == 0)
    }

    @Test("A value that has no query form (infinity, NaN, an arbitrary type) is refused before anything is sent")
    func unsupportedValuesAreRefused() async throws {
        struct Opaque: Sendable {}
        try await withTestServer { server in
            for value in [Double.infinity, Double.nan, Opaque()] as [any Sendable] {
                let error = await networkError {
                    try await Net.perform(TestRequest<Echo>(server.provider(), "/echo", params: ["bad": value]))
                }
                #expect(error?.caseName == "invalidRequest", "\(value)")
                #expect(error?.context?.reason?.contains("params.bad") == true, "\(String(describing: error))")
            }
            let requestsReceived = try await server.receivedRequestCount()
            #expect(requestsReceived == 0)
        }
    }

    @Test("arrayEncoding writes arrays as repeated keys, with brackets or comma-separated",
          arguments: [(ArrayEncoding.repeatedKeys, "tag=a&tag=b%2Cc"), (.brackets, "tag%5B%5D=a&tag%5B%5D=b%2Cc"),
                      (.commaSeparated, "tag=a,b%2Cc")])
    func arrayEncodingStyles(style: ArrayEncoding, expected: String) async throws {
        try await withTestServer { server in
            let request = TestRequest<Echo>(server.provider(), "/echo", params: ["tag": ["a", "b,c"]])
            request.arrayEncoding = style
            let echo = try await makeManager().perform(request)
            #expect(echo.query == expected)
        }
    }
}
