import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// The default `parseAndValidate`: 2xx decodes the body; 401 and 403 are `.unauthorizedAccess`,
/// 404 `.notFound`, 408 and 504 `.timeOut`, any other status `.apiError` with the status and the response.
/// `/status/<code>` answers with that status and the body `{"status": <code>}`.
@Suite("Status mapping", .sharing)
struct StatusMappingTests {
    @Test("A 2xx response is decoded", arguments: [200, 201, 202, 203, 206, 299])
    func successDecodes(_ code: Int) async throws {
        let server = try await TestServer.shared()
        let body = try await Net.perform(TestRequest<StatusBody>(server.provider(), "/status/\(code)"))
        #expect(body.status == code)
    }

    @Test("401 and 403 are .unauthorizedAccess", arguments: [401, 403])
    func unauthorized(_ code: Int) async throws {
        let server = try await TestServer.shared()
        let error = await networkError { try await Net.perform(TestRequest<StatusBody>(server.provider(), "/status/\(code)")) }
        guard case .unauthorizedAccess(let context)? = error else {
            Issue.record("expected .unauthorizedAccess, got \(String(describing: error))")
            return
        }
        #expect(context.statusCode == code)
    }

    @Test("404 is .notFound")
    func notFound() async throws {
        let server = try await TestServer.shared()
        let error = await networkError { try await Net.perform(TestRequest<StatusBody>(server.provider(), "/status/404")) }
        guard case .notFound(let context)? = error else {
            Issue.record("expected .notFound, got \(String(describing: error))")
            return
        }
        #expect(context.statusCode == 404)
    }

    @Test("408 and 504 are .timeOut", arguments: [408, 504])
    func timeOut(_ code: Int) async throws {
        let server = try await TestServer.shared()
        let error = await networkError { try await Net.perform(TestRequest<StatusBody>(server.provider(), "/status/\(code)")) }
        guard case .timeOut(let context)? = error else {
            Issue.record("expected .timeOut, got \(String(describing: error))")
            return
        }
        #expect(context.statusCode == code)
    }

    @Test("Any other non-2xx status is .apiError with that status and the response, also when its body is no error body",
          arguments: [300, 400, 402, 405, 409, 410, 418, 422, 429, 500, 501, 502, 503, 599])
    func otherStatuses(_ code: Int) async throws {
        let server = try await TestServer.shared()
        let error = await networkError { try await Net.perform(TestRequest<StatusBody>(server.provider(), "/status/\(code)")) }
        guard case .apiError(let context)? = error else {
            Issue.record("expected .apiError with status \(code), got \(String(describing: error))")
            return
        }
        #expect(context.statusCode == code)
        #expect(error?.statusCode == code)
        #expect(context.response?.statusCode == code)
        #expect(context.response?.body == Data(#"{"status": \#(code)}"#.utf8))
        #expect(context.serverError == nil)
    }

    @Test("The status is checked whatever the method", arguments: [HTTPMethod.post, .put, .patch, .delete, .options])
    func statusCheckedForEveryMethod(_ method: HTTPMethod) async throws {
        let server = try await TestServer.shared()
        let error = await networkError {
            try await Net.perform(TestRequest<StatusBody>(server.provider(), "/status/403", method: method, params: ["k": "v"]))
        }
        #expect(error?.caseName == "unauthorizedAccess")
    }

    @Test("A status error names the method and URL, says what happened, and suggests what to do",
          arguments: [401, 403, 404, 408, 504])
    func statusErrorDescribesTheRequest(_ code: Int) async throws {
        let server = try await TestServer.shared()
        let error = try #require(await networkError {
            try await Net.perform(TestRequest<StatusBody>(server.provider(), "/status/\(code)", method: .post))
        })
        let description = try #require(error.errorDescription)
        #expect(description.contains("POST http://127.0.0.1:\(server.port)/status/\(code)"), "\(description)")
        #expect(description.contains("\(code)"), "\(description)")
        #expect(error.recoverySuggestion?.isEmpty == false)
        #expect(error.localizedDescription == description)
    }

    @Test("A status without a case of its own names the request and what the server answered (with the standard reason phrase when there is one), says whether the server erred or refused, and what to do",
          arguments: [(418, "The server refused the request: the server answered status 418", "Read the server's message"),
                      (429, "The server refused the request: the server answered 429 Too Many Requests", "try again later"),
                      (500, "The server reported an error: the server answered 500 Internal Server Error", "try again later"),
                      (503, "The server reported an error: the server answered 503 Service Unavailable", "try again later")])
    func otherStatusErrorDescribesTheRequest(_ code: Int, summary: String, advice: String) async throws {
        let server = try await TestServer.shared()
        let log = LogCollector()
        let error = try #require(await networkError {
            try await makeManager(log: log).perform(TestRequest<StatusBody>(server.provider(), "/status/\(code)"))
        })
        let description = try #require(error.errorDescription)
        #expect(description == "\(summary). (GET http://127.0.0.1:\(server.port)/status/\(code))")
        #expect(error.recoverySuggestion?.contains(advice) == true, "\(error.recoverySuggestion ?? "")")
        let failure = try #require(log.all.last)
        #expect(failure.contains("✗ failed after"), "\(failure)")
        #expect(failure.contains(description), "\(failure)")
    }

    @Test("A 304 to a request that was not conditional says so, and what to check, instead of \"refused\"")
    func unsolicitedNotModified() async throws {
        try await withFaultServer { server in
            let error = try #require(await networkError {
                try await makeManager().perform(TestRequest<StatusBody>(server.provider(), "/not-modified"))
            })
            #expect(error.caseName == "apiError", "\(error)")
            #expect(error.context?.statusCode == 304)
            let description = try #require(error.errorDescription)
            #expect(description == "The server did not send the resource: the server answered 304 Not Modified to a request that was "
                        + "not conditional (it sent no If-None-Match or If-Modified-Since), so there is no copy this answer could "
                        + "refer to. (GET http://127.0.0.1:\(server.port)/not-modified)")
            #expect(error.recoverySuggestion?.contains("a cache or proxy in between") == true, "\(error.recoverySuggestion ?? "")")
        }
    }

    @Test("A 304 to a conditional request says the copy it names is current, and how to accept it")
    func conditionalNotModified() async throws {
        let server = try await TestServer.shared()
        let error = try #require(await networkError {
            try await makeManager().perform(TestRequest<StatusBody>(server.provider(), "/status/304", headers: ["If-None-Match": "\"v1\""]))
        })
        #expect(error.context?.reason == "the server answered 304 Not Modified: the copy the request's If-None-Match or "
                    + "If-Modified-Since names is current")
        #expect(error.errorDescription?.hasPrefix("The server did not send the resource: ") == true, "\(error)")
        #expect(error.recoverySuggestion?.contains("acceptableStatuses") == true)
    }

    @Test("A 2xx body that does not match the response type is .serialization naming the missing key")
    func successWithWrongShape() async throws {
        struct Expected: Decodable, Sendable { let identifier: Int }
        let server = try await TestServer.shared()
        let error = await networkError { try await Net.perform(TestRequest<Expected>(server.provider(), "/status/200")) }
        guard case .serialization(let context)? = error else {
            Issue.record("expected .serialization, got \(String(describing: error))")
            return
        }
        #expect(context.reason?.contains("identifier") == true, "\(String(describing: context.reason))")
        #expect(context.underlyingError is DecodingError)
        #expect(context.statusCode == 200)
    }

    @Test("An error status is reported as the status, not as a failure to decode its body")
    func statusWinsOverDecoding() async throws {
        let server = try await TestServer.shared()
        let error = await networkError {
            try await Net.perform(TestRequest<StatusBody>(server.provider(), "/status/404?body=not%20json&contentType=text/plain"))
        }
        #expect(error?.caseName == "notFound")
    }
}
