import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// `bytes(forHeader:)` gives a header's value as the server sent it: a Latin-1 byte that
/// `value(forHeader:)` shows as U+FFFD stays reachable. The values come from a raw-socket server
/// (Tests/Servers/hostile_headers.py).
@Suite("Header values as bytes", .sharedServers(faultModes: [.serve]), .sharing)
struct HeaderBytesTests {
    @Test("A Latin-1 byte (0xE9) is U+FFFD in value(forHeader:) and the byte itself in bytes(forHeader:), in any case of the name")
    func latin1ByteStaysReachable() async throws {
        let server = try SharedServers.fault(.serve)
        let (_, response) = try await makeManager().performWithResponse(TestRequest<FaultOK>(server.provider(), "/latin1-header"))
        #expect(response.value(forHeader: "X-Name") == "caf\u{FFFD}")
        for name in ["X-Name", "x-name", "X-NAME"] {
            #expect(response.bytes(forHeader: name) == Array("caf".utf8) + [0xE9], "\(name)")
        }
        let decoded = response.bytes(forHeader: "X-Name").flatMap { String(bytes: $0, encoding: .isoLatin1) }
        #expect(decoded == "café")
        #expect(response.bytes(forHeader: "X-Mixed") == [0xE9, 0xC3, 0xA9])
        #expect(response.bytes(forHeader: "X-Absent") == nil)
        #expect(response.bytes(forHeader: "Content-Length") == Array("12".utf8))
    }

    @Test("A folded value's bytes are the unfolded value")
    func foldedValueBytes() async throws {
        let server = try SharedServers.fault(.serve)
        let (_, response) = try await makeManager().performWithResponse(TestRequest<FaultOK>(server.provider(), "/fold/middle"))
        #expect(response.bytes(forHeader: "x-fold") == Array("first second third".utf8))
    }

    @Test("Repeated lines are joined with \", \" as value(forHeader:) joins them; a made response gives its values' UTF-8")
    func repeatedAndMadeResponses() {
        let url = URL(string: "https://api.example.com")!
        let lines = HTTPResponse(statusCode: 200, headerFields: [("Vary", "Accept"), ("vary", "Origin"), ("X-É", "é")], url: url)
        #expect(lines.bytes(forHeader: "VARY") == Array("Accept, Origin".utf8))
        #expect(lines.bytes(forHeader: "X-É") == Array("é".utf8))
        let dictionary = HTTPResponse(statusCode: 200, headers: ["X-A": "café"], url: url)
        #expect(dictionary.bytes(forHeader: "x-a") == Array("café".utf8))
        #expect(dictionary.bytes(forHeader: "X-B") == nil)
        let block = ResponseHeaders(raw: Array("Set-Cookie: a=1\nX-Name: caf".utf8) + [0xE9, 0x0A] + Array("set-cookie: b=2\n".utf8))
        #expect(block.bytes(for: "Set-Cookie") == Array("a=1, b=2".utf8))
        #expect(block.bytes(for: "x-name") == Array("caf".utf8) + [0xE9])
    }
}
