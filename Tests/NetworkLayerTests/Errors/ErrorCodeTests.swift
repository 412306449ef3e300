import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Errors a service can log by name: `code` (the case's name), a logfmt line, and descriptions
/// that read like the rest of the library's (no `Optional(…)`, no internal flags).
@Suite("Errors a service logs by name", .sharing)
struct ErrorCodeTests {
    /// One error of every case; the switch fails to compile when a case is added without one.
    static let oneOfEach: [NetworkError] = {
        let context = NetworkError.Context(request: "GET http://127.0.0.1/x", reason: "a reason")
        let errors: [NetworkError] = [
            .generic(code: 500), .reachability(context), .timeOut(context), .invalidCertificate(context), .serialization(context),
            .notFound(context), .unauthorizedAccess(context), .customUser(description: "User deleted", code: 666),
            .cancelled(context), .mockNotFound(filename: "a.json"), .invalidRequest(context), .transport(context),
            .apiError(context), .validation(context), .circuitOpen(context),
        ]
        for error in errors {
            switch error {
            case .generic, .reachability, .timeOut, .invalidCertificate, .serialization, .notFound, .unauthorizedAccess,
                 .customUser, .cancelled, .mockNotFound, .invalidRequest, .transport, .apiError, .validation, .circuitOpen:
                break
            }
        }
        return errors
    }()

    @Test("code is the case's name, for every case")
    func codeIsTheCaseName() {
        for error in Self.oneOfEach {
            let caseName = Mirror(reflecting: error).children.first?.label
            #expect(error.code == caseName, "\(error.code) for \(String(describing: caseName))")
        }
        #expect(Set(Self.oneOfEach.map(\.code)).count == Self.oneOfEach.count)
        #expect(NetworkError.timeOut.code == "timeOut" && NetworkError.invalidCertificate.code == "invalidCertificate")
    }

    /// A logfmt line's fields, as a logfmt reader takes them (bare words, or quoted with `\` escapes).
    static func logfmtFields(_ line: String) -> [(String, String)]? {
        var fields: [(String, String)] = []
        var rest = Substring(line)
        while !rest.isEmpty {
            guard let equals = rest.firstIndex(of: "=") else { return nil }
            let key = String(rest[..<equals])
            rest = rest[rest.index(after: equals)...]
            var value = ""
            if rest.first == "\"" {
                rest = rest.dropFirst()
                var escaped = false
                while let character = rest.first {
                    rest = rest.dropFirst()
                    if escaped { value.append(character == "n" ? "\n" : character); escaped = false }
                    else if character == "\\" { escaped = true }
                    else if character == "\"" { break }
                    else { value.append(character) }
                }
            } else {
                let end = rest.firstIndex(of: " ") ?? rest.endIndex
                value = String(rest[..<end])
                rest = rest[end...]
            }
            fields.append((key, value))
            rest = rest.drop { $0 == " " }
        }
        return fields
    }

    @Test("logfmtDescription is one line of fields a logfmt reader gets back, whatever the texts hold")
    func logfmtRoundTrips() throws {
        let awkward = "a \"quoted\" word, a = sign, a back\\slash,\na new line"
        let error = NetworkError.apiError(.init(request: "GET http://127.0.0.1/x?a=1", reason: awkward, statusCode: 503,
                                                underlyingError: CurlError(code: 28, message: "secret-ish text")))
        let line = error.logfmtDescription
        #expect(!line.contains("\n"))
        let fields = try #require(Self.logfmtFields(line))
        #expect(fields.map(\.0) == ["error", "status", "request", "reason", "underlying", "curl_code"])
        #expect(fields.map(\.1) == ["apiError", "503", "GET http://127.0.0.1/x?a=1", awkward, "CurlError", "28"])
        #expect(!line.contains("secret-ish"), "the underlying error's text is not in the line, only its type")
        #expect(NetworkError.customUser(description: "User deleted", code: 666).logfmtDescription
                == "error=customUser code=666 description=\"User deleted\"")
        #expect(NetworkError.generic().logfmtDescription == "error=generic")
        #expect(NetworkError.timeOut.logfmtDescription == "error=timeOut")
    }

    @Test("A real timeout and a real 503, as logfmt and as descriptions: no Optional(…), no internal flag")
    func realFailures() async throws {
        let server = try await TestServer.shared()
        let timeout = await networkError { try await makeManager().perform(TestRequest<JSONValue>(server.provider(), "/delay/5", timeout: 0.3)) }
        let timedOut = try #require(timeout)
        #expect(timedOut.code == "timeOut")
        let fields = try #require(Self.logfmtFields(timedOut.logfmtDescription))
        #expect(fields.first { $0.0 == "underlying" }?.1 == "CurlError" && fields.first { $0.0 == "curl_code" }?.1 == "28")
        #expect(fields.first { $0.0 == "request" }?.1.hasPrefix("GET http://127.0.0.1:\(server.port)/delay/5") == true)

        let httpbin = try await HTTPBinServer.shared()
        let failed = try #require(await networkError { try await makeManager().perform(TestRequest<JSONValue>(httpbin.provider(), "/status/503")) })
        #expect(failed.logfmtDescription.hasPrefix("error=apiError status=503 request=\"GET http://127.0.0.1:\(httpbin.port)/status/503\""))
        for error in [timedOut, failed] {
            for text in ["\(error)", String(reflecting: error)] {
                #expect(!text.contains("Optional("), "\(text)")
                #expect(!text.contains("concernsClientCertificate"), "\(text)")
            }
            // dump shows the context's own parts unwrapped (a nested value's optionals are dump's own).
            var dumped = ""
            dump(error, to: &dumped)
            #expect(dumped.contains("- request: \"GET http://127.0.0.1:") && dumped.contains("- reason: \""), "\(dumped)")
            #expect(!dumped.contains("concernsClientCertificate") && !dumped.contains("- serverError"), "\(dumped)")
            #expect("\(error)" == "\(error.code): \(error.errorDescription ?? "")")
            #expect(String(reflecting: error).hasPrefix("NetworkError.\(error.code)(request: \"GET http://127.0.0.1:"))
        }
    }

    @Test("A failure's log entry says why: errorCode and errorDescription, statusCode nil when no response caused it")
    func failureEntryCarriesTheReason() async throws {
        let server = try await TestServer.shared()
        let entries = LogEntryCollector()
        let net = makeManager(entries: entries)
        let error = try #require(await networkError { try await net.perform(TestRequest<JSONValue>(server.provider(), "/delay/5", timeout: 0.3)) })
        let failure = try #require(entries.all.first { $0.phase == .failure })
        #expect(failure.errorCode == "timeOut" && failure.statusCode == nil && failure.level == .error)
        let reason = try #require(error.context?.reason)
        #expect(failure.errorDescription == error.errorDescription && failure.errorDescription?.contains(reason) == true,
                "\(String(describing: failure.errorDescription))")
    }

    /// Ways a request fails, each with the error it must carry request and reason in.
    static let failures: [(String, @Sendable (TestServer, Int) async throws -> Void)] = [
        ("refused connection", { _, closed in
            _ = try await makeManager().perform(TestRequest<JSONValue>(TestProvider(host: "127.0.0.1", httpScheme: .http, port: closed), "/x"))
        }),
        ("timeout", { server, _ in _ = try await makeManager().perform(TestRequest<JSONValue>(server.provider(), "/delay/5", timeout: 0.3)) }),
        ("404", { server, _ in _ = try await makeManager().perform(TestRequest<JSONValue>(server.provider(), "/status/404")) }),
        ("500", { server, _ in _ = try await makeManager().perform(TestRequest<JSONValue>(server.provider(), "/status/500")) }),
        ("a body that does not decode", { server, _ in _ = try await makeManager().perform(TestRequest<[Int]>(server.provider(), "/echo")) }),
        ("a header with a line break", { server, _ in
            _ = try await makeManager().perform(TestRequest<JSONValue>(server.provider(), "/echo", headers: ["X-Bad": "a\r\nb"]))
        }),
        ("a connection closed without an answer", { server, _ in
            _ = try await makeManager().perform(TestRequest<JSONValue>(server.provider(), "/close"))
        }),
        ("a timeout of zero", { server, _ in _ = try await makeManager().perform(TestRequest<JSONValue>(server.provider(), "/echo", timeout: 0)) }),
        ("a validator that refuses", { server, _ in
            let request = TestRequest<JSONValue>(server.provider(), "/echo")
            request.validator = { _ in throw CocoaError(.featureUnsupported) }
            _ = try await makeManager().perform(request)
        }),
        ("a cancelled request", { server, _ in
            let task = Task { _ = try await makeManager().perform(TestRequest<JSONValue>(server.provider(), "/delay/5")) }
            try await Task.sleep(for: .milliseconds(200))
            task.cancel()
            try await task.value
        }),
        ("a request cancelled before it started", { server, _ in
            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                _ = try await makeManager().perform(TestRequest<JSONValue>(server.provider(), "/echo"))
            }
            try await task.value
        }),
    ]

    @Test("Every error the library raises names its request and the reason")
    func requestAndReasonAreThere() async throws {
        let server = try await TestServer.shared()
        let closed = try closedPort()
        for (name, fail) in Self.failures {
            let error = await networkError { try await fail(server, closed) }
            let context = error?.context
            #expect(context?.request?.isEmpty == false, "\(name): \(String(describing: error))")
            #expect(context?.reason?.isEmpty == false, "\(name): \(String(describing: error))")
        }
    }
}
