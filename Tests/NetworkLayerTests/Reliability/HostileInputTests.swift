import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

extension Reliability {
    /// Hostile input from the caller (control characters in headers, CR/LF in an endpoint, a host
    /// that is not a host) is refused with `.invalidRequest` before any socket opens.
    ///
    /// Each test points its requests at a fault server of its own and then asks it for `/stats`:
    /// zero connections accepted proves nothing was sent, not even a connection opened. A form
    /// that the library does not refuse would reach that server (every hostile host below still
    /// names 127.0.0.1 and the server's port), so the count would show it.
    @Suite("Hostile input", .sharing)
    struct HostileInputTests {
        /// A hostile request, described for the test report.
        struct Form: Sendable, CustomTestStringConvertible {
            let label: String
            let make: @Sendable (FaultServer) -> TestRequest<FaultOK>
            var testDescription: String { label }
        }

        /// Sends every form, checks each is `.invalidRequest` with a reason, then that the server saw nothing.
        static func expectRefusedBeforeAnySocket(_ forms: [Form]) async throws {
            try await withFaultServer { server in
                let net = makeManager()
                for form in forms {
                    let make = form.make
                    let ((outcome, elapsed), waited) = await withCoreWaits {
                        await timedOnOwnExecutor {
                            await FaultOutcome { () throws(NetworkError) in try await net.perform(make(server)) }
                        }
                    }
                    guard case .invalidRequest(let context)? = outcome.error else {
                        Issue.record("\(form.label): expected .invalidRequest, got \(outcome)")
                        continue
                    }
                    #expect(context.reason?.isEmpty == false, "\(form.label)")
                    #expect(outcome.error?.recoverySuggestion?.contains("nothing was sent") == true)
                    #expect(elapsed < .milliseconds(250) + waited, "\(form.label): refusing took \(elapsed) (waits for a core: \(waited))")
                }
                let stats = try await server.stats()
                #expect(stats == FaultStats(connections: 0, requests: 0), "the server was contacted: \(stats)")
                // And the manager still works.
                let ok = try await net.perform(TestRequest<FaultOK>(server.provider(), "/ok", timeout: 5))
                #expect(ok.ok)
            }
        }

        static let badHeaderNames = ["X-Evil\r\nX-Injected", "X-Evil\n", "X-Evil\r", "X-Evil\0", "X Evil", "X-Evil:",
                                     "", "X-Ev\u{7F}il", "X-Ev\u{1B}[31mil", "X-Évil", "X-Evil\t", "(X-Evil)"]
        static let badHeaderValues = ["ok\r\nX-Injected: yes", "ok\nX-Injected: yes", "ok\rX-Injected: yes", "ok\0tail",
                                      "\r\n\r\nGET /smuggled HTTP/1.1", "ok\u{7F}", "ok\u{1B}[2J", "ok\u{07}", "ok\u{0B}", "ok\u{0C}"]

        @Test("Header names and values with control characters are refused, from the request, the provider or the authentication")
        func controlCharactersInHeaders() async throws {
            var forms: [Form] = []
            for name in Self.badHeaderNames {
                forms.append(Form(label: "request header name \(name.debugDescription)") {
                    TestRequest<FaultOK>($0.provider(), "/ok", headers: [name: "value"], timeout: 2)
                })
                forms.append(Form(label: "provider header name \(name.debugDescription)") {
                    TestRequest<FaultOK>($0.provider(headers: [name: "value"]), "/ok", timeout: 2)
                })
                forms.append(Form(label: "API-key header name \(name.debugDescription)") {
                    TestRequest<FaultOK>($0.provider(authentication: .apiKey("key", header: name)), "/ok", timeout: 2)
                })
            }
            for value in Self.badHeaderValues {
                forms.append(Form(label: "request header value \(value.debugDescription)") {
                    TestRequest<FaultOK>($0.provider(), "/ok", headers: ["X-Evil": value], timeout: 2)
                })
                forms.append(Form(label: "provider header value \(value.debugDescription)") {
                    TestRequest<FaultOK>($0.provider(headers: ["X-Evil": value]), "/ok", timeout: 2)
                })
                forms.append(Form(label: "bearer token \(value.debugDescription)") {
                    TestRequest<FaultOK>($0.provider(authentication: .bearer(value)), "/ok", timeout: 2)
                })
                forms.append(Form(label: "API key \(value.debugDescription)") {
                    TestRequest<FaultOK>($0.provider(authentication: .apiKey(value)), "/ok", timeout: 2)
                })
            }
            try await Self.expectRefusedBeforeAnySocket(forms)
        }

        static let badEndpoints = ["/ok\r\nX-Injected: yes", "/ok HTTP/1.1\r\nHost: evil\r\n\r\n", "/ok\n", "/ok\r", "/ok\0",
                                   "/ok\u{0}/../secret", "/ok\u{7F}", "/ok\u{1B}", "/ok\u{85}", "/ok?q=1\r\nX: y",
                                   "/ok#\r\n", "\r\n/ok"]

        @Test("An endpoint with CR, LF, NUL or another control character is refused")
        func controlCharactersInEndpoints() async throws {
            try await Self.expectRefusedBeforeAnySocket(Self.badEndpoints.map { endpoint in
                Form(label: "endpoint \(endpoint.debugDescription)") { TestRequest<FaultOK>($0.provider(), endpoint, timeout: 2) }
            })
        }

        /// Hosts that are not a host name. Each still names 127.0.0.1, and the provider gives the
        /// test server's port, so a request the library let through would reach that server.
        static let badHosts = ["127.0.0.1 ", " 127.0.0.1", "127.0.0.1\r\n", "127.0.0.1\r\nX-Injected: yes",
                               "127.0.0.1\0evil.example", "127 .0.0.1", "127.0.0.1/ok", "127.0.0.1/ok?x=1", "127.0.0.1?x=1",
                               "127.0.0.1#x", "127.0.0.1:<port>", "user@127.0.0.1", "user:pass@127.0.0.1", "http://127.0.0.1",
                               "https://127.0.0.1", "//127.0.0.1", "http:127.0.0.1", "127.0.0.1\\evil", "127.0.0.1%0d%0a",
                               "127.0.0.1\t", "127.0.0.1\u{7F}", ""]

        @Test("A host with spaces, a scheme, a path, userinfo, a port or a control character is refused")
        func malformedHosts() async throws {
            try await Self.expectRefusedBeforeAnySocket(Self.badHosts.map { template in
                Form(label: "host \(template.debugDescription)") { server in
                    let host = template.replacingOccurrences(of: "<port>", with: "\(server.port)")
                    return TestRequest<FaultOK>(FaultProvider(host: host, httpScheme: .http, port: server.port), "/ok", timeout: 2)
                }
            })
        }

        @Test("A port outside 1...65535 is refused", arguments: [0, -1, 65536, 80_000, Int.max])
        func portOutOfRange(port: Int) async throws {
            let request = TestRequest<FaultOK>(FaultProvider(host: "127.0.0.1", httpScheme: .http, port: port), "/ok", timeout: 2)
            let outcome = await FaultOutcome { () throws(NetworkError) in try await makeManager().perform(request) }
            guard case .invalidRequest(let context)? = outcome.error else {
                Issue.record("port \(port): expected .invalidRequest, got \(outcome)")
                return
            }
            #expect(context.reason?.contains("\(port)") == true, "\(String(describing: context.reason))")
        }

        @Test("A method that is not an RFC 9110 token (CR, LF, a space, empty, non-ASCII) is .invalidRequest; nothing is sent")
        func methodsMustBeTokens() async throws {
            try await withTestServer { server in
            for raw in ["GET\r\nX-Injected: yes", "GET ", "GET /x HTTP/1.1\r\n", "", "PROP FIND", "G\u{0}T", "GÉT", "GET\t"] {
                let outcome = await FaultOutcome { () throws(NetworkError) in
                    try await makeManager().perform(TestRequest<Echo>(server.provider(), "/echo", method: HTTPMethod(rawValue: raw)))
                }
                guard case .invalidRequest(let context)? = outcome.error else {
                    Issue.record("\(raw.debugDescription): expected .invalidRequest, got \(outcome)")
                    continue
                }
                #expect(context.reason?.contains("not a valid HTTP method") == true, "\(String(describing: context.reason))")
                #expect(outcome.error?.errorDescription?.contains("\r") == false)
            }
            let received = try await server.receivedRequestCount()
            #expect(received == 0)
            }
            // Any token is a method, sent exactly as written.
            for raw in ["PROPFIND", "get", "X-CUSTOM.1~"] {
                #expect(HTTPMethod(rawValue: raw).problem == nil, "\(raw)")
            }
        }

        @Test("A body's content type with CR or LF is refused: it becomes a header")
        func controlCharactersInABodyContentType() async throws {
            let type = "text/plain\r\nX-Injected: yes"
            try await Self.expectRefusedBeforeAnySocket([
                Form(label: ".data content type") { server in
                    let request = TestRequest<FaultOK>(server.provider(), "/ok", method: .post, timeout: 2)
                    request.body = .data(Data("x".utf8), contentType: type)
                    return request
                },
                Form(label: ".file content type") { server in
                    let request = TestRequest<FaultOK>(server.provider(), "/ok", method: .post, timeout: 2)
                    request.body = .file(URL(fileURLWithPath: #filePath), contentType: type)
                    return request
                },
            ])
        }

        @Test("A multipart MIME type with CR or LF is refused: it becomes a part header")
        func controlCharactersInMultipartMIMEType() async throws {
            let evil = "x\r\nX-Injected: yes"
            try await Self.expectRefusedBeforeAnySocket([
                Form(label: "multipart MIME type") { server in
                    let request = TestRequest<FaultOK>(server.provider(), "/ok", method: .post, timeout: 2)
                    request.body = .multipart(MultipartFormData().data("file", Data("x".utf8), filename: "a.txt", mimeType: evil))
                    return request
                },
                Form(label: "multipart file part's MIME type") { server in
                    let request = TestRequest<FaultOK>(server.provider(), "/ok", method: .post, timeout: 2)
                    request.body = .multipart(MultipartFormData().file("file", at: URL(fileURLWithPath: #filePath), mimeType: evil))
                    return request
                },
            ])
        }

        // Names and file names are quoted inside Content-Disposition, and libcurl percent-escapes
        // '"', CR and LF there: sent, but harmless. A recording server shows exactly what arrived.
        @Test("Multipart names and file names with quotes, CR or LF are escaped, never extra part headers")
        func multipartNamesAreEscaped() async throws {
            try await offCooperativePool { try TestServer.start(record: true) }.whileRunning { server in
                let request = TestRequest<Echo>(server.provider(), "/echo", method: .post, timeout: 5)
                request.body = .multipart(MultipartFormData()
                    .text("na\"me\r\nX-Injected-Name: 1", "v")
                    .data("f", Data("x".utf8), filename: "a\"b\r\nX-Injected-File: 1.txt", mimeType: "text/plain"))
                _ = try await makeManager().perform(request)
                let received = String(decoding: server.recordedBytes(), as: UTF8.self)
                #expect(received.contains("Content-Disposition: form-data; name=\"na%22me%0D%0AX-Injected-Name: 1\""), "\(received)")
                #expect(!received.contains("\r\nX-Injected"), "\(received)")
            }
        }

        // An endpoint built from user input could otherwise write lines of its own into the log.
        @Test("A refused endpoint's CR and LF are escaped in the error and the log: no forged log lines")
        func refusedEndpointCannotForgeLogLines() async throws {
            let log = LogCollector()
            let net = makeManager(log: log)
            let provider = FaultProvider(host: "127.0.0.1", httpScheme: .http, port: try closedPort())
            let forged = "/ok\r\n[NetworkLayer #999] ← 200 GET https://bank.example/transfer in 1 ms"
            let outcome = await FaultOutcome { () throws(NetworkError) in
                try await net.perform(TestRequest<FaultOK>(provider, forged, timeout: 1))
            }
            guard case .invalidRequest? = outcome.error else {
                Issue.record("expected .invalidRequest, got \(outcome)")
                return
            }
            let isLineBreak: (Unicode.Scalar) -> Bool = { $0 == "\r" || $0 == "\n" }
            let description = outcome.error?.errorDescription ?? ""
            #expect(!description.unicodeScalars.contains(where: isLineBreak), "\(description.debugDescription)")
            // One entry, one line: the entry's own final newline is the only line break.
            for entry in log.all {
                #expect(entry.unicodeScalars.filter(isLineBreak).count == 1, "\(entry.debugDescription)")
            }
        }
    }
}
