import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// A header sent more than once: `values(forHeader:)` gives each line, in order, never joined
/// (a `Set-Cookie` date holds a comma), for live and mocked responses; `value(forHeader:)` and
/// `headers` keep their joined answers.
@Suite("Repeated response headers", .sharing)
struct RepeatedHeaderTests {
    /// The lines the server sends, in order: two Set-Cookie with dates, two Link, two Vary, one other.
    static let lines: [(name: String, value: String)] = [
        ("Set-Cookie", "session=abc123; Expires=Wed, 21 Oct 2026 07:28:00 GMT; Path=/; HttpOnly"),
        ("Link", #"<https://api.example.com/items?page=2>; rel="next""#),
        ("Vary", "Accept-Encoding"),
        ("Set-Cookie", "theme=dark; Expires=Thu, 22 Oct 2026 07:28:00 GMT; Path=/"),
        ("X-Single", "one"),
        ("Link", #"<https://api.example.com/items?page=9>; rel="last""#),
        ("Vary", "Accept-Language, Origin"),
    ]

    static func values(of name: String) -> [String] { lines.filter { $0.name == name }.map(\.value) }

    static var endpoint: String {
        "/response-headers?" + lines.map { "h=" + ParameterValue.percentEncode("\($0.name): \($0.value)") }.joined(separator: "&")
    }

    /// Checks `response` keeps each line apart, and the joined answers of today.
    static func expectRepeatedLines(_ response: HTTPResponse, sourceLocation: SourceLocation = #_sourceLocation) {
        for name in ["Set-Cookie", "Link", "Vary", "X-Single"] {
            let expected = values(of: name)
            for spelling in [name, name.lowercased(), name.uppercased()] {
                #expect(response.values(forHeader: spelling) == expected, "\(spelling)", sourceLocation: sourceLocation)
                #expect(response.value(forHeader: spelling) == expected.joined(separator: ", "), "\(spelling)", sourceLocation: sourceLocation)
            }
            #expect(response.headers[name] == expected.joined(separator: ", "), "\(name)", sourceLocation: sourceLocation)
        }
        #expect(response.values(forHeader: "X-Absent").isEmpty, sourceLocation: sourceLocation)
        #expect(response.value(forHeader: "X-Absent") == nil, sourceLocation: sourceLocation)
    }

    @Test("A live response keeps each Set-Cookie, Link and Vary line, in order, in any case of the name; value(forHeader:) still joins them")
    func liveResponseKeepsEachLine() async throws {
        let server = try await TestServer.shared()
        let (_, response) = try await makeManager().performWithResponse(TestRequest<JSONValue>(server.provider(), Self.endpoint))
        Self.expectRepeatedLines(response)
        // The lines before and after the dictionary was built read the same.
        _ = response.headers
        Self.expectRepeatedLines(response)
    }

    @Test("The two Set-Cookie lines of /headers are two values; the joined value is today's")
    func twoSetCookieLines() async throws {
        let server = try await TestServer.shared()
        let (_, response) = try await makeManager().performWithResponse(TestRequest<JSONValue>(server.provider(), "/headers"))
        #expect(response.values(forHeader: "set-cookie") == ["session=abc123; Path=/", "theme=dark; Path=/"])
        #expect(response.value(forHeader: "Set-Cookie") == "session=abc123; Path=/, theme=dark; Path=/")
        #expect(response.values(forHeader: "X-Empty") == [""])
    }

    @Test("A mock registered with headerFields gives each line, as .json and as .data")
    func registeredMockGivesEachLine() async throws {
        let net = makeManager()
        net.areMocksEnabled = true
        net.mocks.register(.get, "/json", .json(["ok": true], headerFields: Self.lines))
        net.mocks.register(.get, "/data", .data(Data("{}".utf8), headerFields: Self.lines))
        let provider = TestProvider(host: "127.0.0.1", httpScheme: .http, port: try closedPort())
        for path in ["/json", "/data"] {
            let (_, response) = try await net.performWithResponse(TestRequest<JSONValue>(provider, path))
            #expect(response.isMocked)
            Self.expectRepeatedLines(response)
        }
        let (_, json) = try await net.performWithResponse(TestRequest<JSONValue>(provider, "/json"))
        #expect(json.value(forHeader: "Content-Type") == "application/json", "added unless given, as for headers:")
    }

    @Test("A mock with a dictionary of headers gives one value per header")
    func dictionaryMockGivesOneValue() async throws {
        let net = makeManager()
        net.areMocksEnabled = true
        net.mocks.register(.get, "/one", .data(Data("{}".utf8), headers: ["Link": "<a>, <b>"]))
        let provider = TestProvider(host: "127.0.0.1", httpScheme: .http, port: try closedPort())
        let (_, response) = try await net.performWithResponse(TestRequest<JSONValue>(provider, "/one"))
        #expect(response.values(forHeader: "link") == ["<a>, <b>"])
        #expect(HTTPResponse(statusCode: 200, headers: ["x-a": "1", "X-A": "2"], url: URL(string: "http://h")!)
            .values(forHeader: "X-A") == ["2", "1"], "the exact spelling first, then the others")
    }

    @Test("Record mode writes a repeated header as an array in the sidecar, and the replayed mock answers with each line")
    func recordedMockKeepsEachLine() async throws {
        let server = try await TestServer.shared()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let live = makeManager()
        live.mockRecordingDirectory = directory
        let request = { MockedRequest<JSONValue>(server.provider(), Self.endpoint, mock: "Repeated") }
        _ = try await live.performWithResponse(request())
        let sidecar = try JSONSerialization.jsonObject(with: Data(contentsOf: directory.appendingPathComponent("Repeated.meta.json")))
        let headers = try #require((sidecar as? [String: Any])?["headers"] as? [String: Any])
        #expect(headers["Link"] as? [String] == Self.values(of: "Link"), "\(headers)")
        #expect(headers["Vary"] as? [String] == Self.values(of: "Vary"), "\(headers)")
        #expect(headers["X-Single"] as? String == "one", "a header sent once stays a string")
        #expect(headers["Set-Cookie"] == nil, "a secret header is not recorded")

        let (_, replayed) = try await makeManager(mocks: directory).performWithResponse(request())
        #expect(replayed.isMocked)
        for name in ["Link", "Vary", "X-Single"] { #expect(replayed.values(forHeader: name) == Self.values(of: name), "\(name)") }
    }

    @Test("A sidecar header may be a string or an array of strings; anything else is refused, naming the file")
    func sidecarHeaderValues() throws {
        let sidecar = try MockStore.Sidecar.parse(Data(#"{"headers": {"Link": ["<a>", "<b>"], "X-One": "1"}}"#.utf8), path: "/m.meta.json")
        let headers = sidecar.responseHeaders(defaults: [:])
        #expect(headers.values(for: "link") == ["<a>", "<b>"])
        #expect(headers.values(for: "x-one") == ["1"])
        #expect(headers.value(for: "LINK") == "<a>, <b>")
        #expect(sidecar.responseHeaders(defaults: ["Content-Type": "x"]).values(for: "X-One") == ["1"])
        for bad in [#"{"headers": {"Link": 7}}"#, #"{"headers": {"Link": ["<a>", 7]}}"#, #"{"headers": {"Link": {"a": "b"}}}"#] {
            #expect {
                try MockStore.Sidecar.parse(Data(bad.utf8), path: "/m.meta.json")
            } throws: { error in
                guard case .invalidRequest(let context) = error as? NetworkError else { return false }
                return context.reason?.contains("/m.meta.json") == true
            }
        }
    }

    @Test("HTTPResponse(statusCode:headerFields:url:) keeps each line, for testing a provider's parseAndValidate")
    func publicInitializerKeepsEachLine() throws {
        let response = HTTPResponse(statusCode: 200, headerFields: Self.lines, url: try #require(URL(string: "https://api.example.com")))
        Self.expectRepeatedLines(response)
    }
}
