import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Obsolete line folding (RFC 9112 section 5.2), as a raw-socket server writes it
/// (Tests/Servers/hostile_headers.py): each fold becomes one space in the value it continues, a
/// continuation line never becomes a header of its own, and a fold that continues nothing, or a
/// header libcurl acts on by its first line alone, fails the request saying so.
@Suite("Folded response header lines", .sharedServers(faultModes: [.serve]), .sharing)
struct FoldedHeaderTests {
    /// A folded header at one place of the head, and what the response must read.
    struct Fold: Sendable, CustomTestStringConvertible {
        let path: String
        let expected: [String: String]
        var testDescription: String { path }
    }

    static let unfolded: [Fold] = [
        Fold(path: "/fold/first", expected: ["X-Fold": "first second third", "X-After": "after"]),
        Fold(path: "/fold/middle", expected: ["X-Before": "before", "X-Fold": "first second third", "X-After": "after"]),
        Fold(path: "/fold/last", expected: ["X-Fold": "first second third", "Connection": "close"]),
        Fold(path: "/fold/run", expected: ["X-Run": "one two three four five", "X-After": "after"]),
        Fold(path: "/fold/empty-value", expected: ["X-Empty": "value"]),
        // Trailers join the header block of a complete response, and unfold the same way.
        Fold(path: "/fold/trailer", expected: ["X-Trailer": "one two"]),
    ]

    /// The names of a response's lines: none may start with white space.
    static func expectNoNameStartsWithWhiteSpace(_ response: HTTPResponse, sourceLocation: SourceLocation = #_sourceLocation) {
        for field in response.headerFields {
            #expect(!field.name.hasPrefix(" ") && !field.name.hasPrefix("\t") && !field.name.isEmpty,
                    "\(field.name.debugDescription)", sourceLocation: sourceLocation)
        }
        for name in response.headers.keys {
            #expect(name.first.map { $0 != " " && $0 != "\t" } == true, "\(name.debugDescription)", sourceLocation: sourceLocation)
        }
    }

    @Test("Each fold reads as one space, at the first header, in the middle, on the last, several in a row, in a trailer",
          arguments: unfolded)
    func foldReadsAsOneSpace(_ fold: Fold) async throws {
        let server = try SharedServers.fault(.serve)
        let (value, response) = try await makeManager().performWithResponse(TestRequest<FaultOK>(server.provider(), fold.path))
        #expect(value.ok)
        for (name, expected) in fold.expected {
            #expect(response.value(forHeader: name) == expected, "\(name)")
            #expect(response.value(forHeader: name.lowercased()) == expected, "\(name)")
            #expect(response.values(forHeader: name) == [expected], "\(name)")
            #expect(response.headers[name] == expected, "\(name)")
        }
        Self.expectNoNameStartsWithWhiteSpace(response)
    }

    @Test("A continuation line that reads like a header is part of the value it continues, never a header of its own")
    func continuationNeverMakesAHeader() async throws {
        let server = try SharedServers.fault(.serve)
        let (_, response) = try await makeManager().performWithResponse(TestRequest<FaultOK>(server.provider(), "/fold/inject"))
        #expect(response.value(forHeader: "X-A") == "1 X-Injected: evil Set-Cookie: sid=evil")
        #expect(response.value(forHeader: "X-Injected") == nil)
        #expect(response.values(forHeader: "Set-Cookie").isEmpty)
        #expect(response.headerFields.map(\.name) == ["X-A", "Content-Type", "Content-Length", "Connection"])
        Self.expectNoNameStartsWithWhiteSpace(response)
    }

    @Test("A redirect's 3xx and the final response unfold alike")
    func redirectAndFinalResponseUnfold() async throws {
        let server = try SharedServers.fault(.serve)
        let net = makeManager()
        let unfollowed = TestRequest<EmptyResponse>(server.provider(), "/fold/redirect")
        unfollowed.redirectPolicy = RedirectPolicy.none
        unfollowed.acceptableStatuses = StatusCodes(302)
        let (_, redirect) = try await net.performWithResponse(unfollowed)
        #expect(redirect.statusCode == 302)
        #expect(redirect.value(forHeader: "X-Hop") == "a b")
        Self.expectNoNameStartsWithWhiteSpace(redirect)

        let (_, final) = try await net.performWithResponse(TestRequest<FaultOK>(server.provider(), "/fold/redirect"))
        #expect(final.url.path == "/fold/middle")
        #expect(final.value(forHeader: "X-Fold") == "first second third")
        #expect(final.value(forHeader: "X-Hop") == nil)
        Self.expectNoNameStartsWithWhiteSpace(final)
    }

    @Test("A continuation line with nothing to continue fails the request: right after the status line (also after a 100), first in the trailers",
          arguments: ["/fold/after-status", "/fold/after-interim", "/fold/trailer-first"])
    func continuationOfNothingFails(path: String) async throws {
        let server = try SharedServers.fault(.serve)
        let net = makeManager()
        let error = try #require(await networkError { try await net.perform(TestRequest<FaultOK>(server.provider(), path)) })
        #expect(error.caseName == "transport", "\(error)")
        let reason = error.context?.reason ?? ""
        #expect(reason.contains("starts with white space") && reason.contains("continue"), "\(reason)")
        #expect(error.errorDescription?.contains("GET http://127.0.0.1:\(server.port)\(path)") == true, "\(error)")
        // The manager keeps working.
        #expect(try await net.perform(TestRequest<FaultOK>(server.provider(), "/ok")).ok)
    }

    @Test("A pooled handle meets a continuation right after the status line as a fresh one does: libcurl before 8.1 appends it to the previous transfer's last header, quarantined instead of freed (curl#11101)")
    func pooledHandleDoesNotUnfoldIntoFreedMemory() async throws {
        let server = try SharedServers.fault(.serve)
        let net = makeManager()
        let reallocated = CurlEngine.quarantinedHeadersReallocated
        let leftOut = CurlEngine.handlesLeftOutOfPool.load(ordering: .relaxed)
        for _ in 0..<5 {
            #expect(try await net.perform(TestRequest<FaultOK>(server.provider(), "/ok")).ok)
            let error = try #require(await networkError { try await net.perform(TestRequest<FaultOK>(server.provider(), "/fold/after-status")) })
            // A fresh handle: libcurl refuses the line itself (CURLE_BAD_FUNCTION_ARGUMENT), having
            // no header to append it to. A pooled one before 8.1: libcurl appends it to the
            // quarantined header and goes on, and the header block refuses it.
            #expect(error.context?.reason?.contains("starts with white space") == true, "\(error)")
        }
        guard CurlEasyHandle.keepsStaleHeaderPointer else { return }
        // The last request ran on the handle /ok had just put back (the pool is last in, first out):
        // libcurl reallocated a quarantined header at least once, and such a handle, whose last
        // stored header the lines cannot name, is not pooled again.
        #expect(CurlEngine.quarantinedHeadersReallocated > reallocated, "no pooled handle met the fold")
        #expect(CurlEngine.handlesLeftOutOfPool.load(ordering: .relaxed) > leftOut)
    }

    @Test("A folded Content-Length or Location, which libcurl reads by its first line alone, fails the request naming the header",
          arguments: [("/fold/content-length", "Content-Length"), ("/fold/location", "Location")])
    func foldedHeaderLibcurlActsOnFails(path: String, name: String) async throws {
        let server = try SharedServers.fault(.serve)
        let error = try #require(await networkError { try await makeManager().perform(TestRequest<FaultOK>(server.provider(), path)) })
        #expect(error.caseName == "transport", "\(error)")
        let reason = error.context?.reason ?? ""
        #expect(reason.contains("\(name) header is folded"), "\(reason)")
    }
}
