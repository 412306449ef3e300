import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

extension Reliability {
    /// Secrets never leak: requests carry canary values in every place a secret goes (the
    /// `Authorization`, `Cookie`, API-key and session headers, basic credentials, token and
    /// API-key query items, URL user:password, JSON and multipart fields named like secrets),
    /// run against healthy and broken servers, and not one canary appears in the log sink, in
    /// standard error, or in any error's description, reason, suggestion or dump.
    ///
    /// Standard error is captured by pointing file descriptor 2 at a pipe while the requests of
    /// a manager without a log handler (whose log goes to standard error) run. Other suites
    /// run meanwhile and may write to standard error too: everything read from the pipe is
    /// copied on to the real standard error at once, so their output is not lost, and only
    /// this suite's canaries, which no other test uses, are looked for in it.
    @Suite("Secret canaries", .sharing)
    struct SecretCanaryTests {
        static let bearer = "nlCanaryBearer5e21a"
        static let cookie = "nlCanaryCookie8b3f0"
        static let apiKeyHeader = "nlCanaryApiKey17c4d"
        static let session = "nlCanarySession2d9e"
        static let basicPassword = "nlCanaryBasicPw6a0b"
        static let queryKey = "nlCanaryQueryKey3f7e"
        static let token = "nlCanaryToken9c2d"
        static let endpointKey = "nlCanaryEndpointKey4b8a"
        static let password = "nlCanaryPassword0e6f"
        static let clientSecret = "nlCanarySecret7a1c"
        static let refreshToken = "nlCanaryRefresh5d3b"
        static let multipartPassword = "nlCanaryMultipart2c4e"
        /// In endpoints that are refused (a control character): the error still names the request.
        static let refusedEndpointToken = "nlCanaryRefusedEndpoint1a2b"

        /// Every canary, and the forms they take on the wire (basic credentials are base64).
        static var canaries: [String] {
            [bearer, cookie, apiKeyHeader, session, basicPassword, queryKey, token, endpointKey, password,
             clientSecret, refreshToken, multipartPassword, refusedEndpointToken, FaultServer.canaryPassword,
             Data("ada:\(basicPassword)".utf8).base64EncodedString(),
             Data("\(FaultServer.canaryUser):\(FaultServer.canaryPassword)".utf8).base64EncodedString()]
        }

        /// Headers every request of the canary provider sends.
        static var secretHeaders: [String: String] {
            ["Authorization": "Bearer \(bearer)", "Cookie": "sid=\(cookie); theme=dark", "X-API-Key": apiKeyHeader,
             "X-Session-Token": session, "Accept": "application/json"]
        }

        /// Runs every secret-carrying request on `net`: successes, failures of every kind, redirects.
        static func runEverything(on net: NetworkManager, faults: FaultServer, echo: TestServer, refusedPort: Int,
                                  findings: SecretFindings) async throws {
            func record<T>(_ body: () async throws(NetworkError) -> T) async -> T? {
                do throws(NetworkError) {
                    return try await body()
                } catch {
                    findings.add(error)
                    return nil
                }
            }
            let withHeaders = faults.provider(headers: secretHeaders)
            let basic = faults.provider(headers: ["Accept": "application/json"],
                                        authentication: .basic(username: "ada", password: basicPassword))
            let apiKeyQuery = faults.provider(authentication: .apiKey(queryKey, queryItem: "api_key"))
            let refused = FaultProvider(host: "127.0.0.1", httpScheme: .http, port: refusedPort, headers: secretHeaders)
            let endpointWithKey = "?api_key=\(endpointKey)"

            // A healthy answer, then every kind of broken one, each with all the secrets aboard.
            let paths = ["/ok", "/close", "/short-body", "/reset-mid-body", "/bad-chunk", "/garbage-status", "/nul-header",
                         "/huge-header", "/many-headers", "/corrupt-gzip", "/redirect-loop", "/redirect-file", "/redirect-ftp",
                         "/no-such-path", "/hang"]
            for path in paths {
                _ = await record { () throws(NetworkError) in
                    try await net.perform(TestRequest<FaultOK>(withHeaders, path + endpointWithKey,
                                                               params: ["access_token": token, "page": 2], timeout: 0.5))
                }
            }
            _ = await record { () throws(NetworkError) in
                try await net.perform(TestRequest<FaultOK>(refused, "/ok" + endpointWithKey, params: ["access_token": token]))
            }
            // Secret JSON fields in a body, answered and not.
            for path in ["/ok", "/close"] {
                _ = await record { () throws(NetworkError) in
                    try await net.perform(TestRequest<FaultOK>(withHeaders, path, method: .post, params: [
                        "user": "ada", "password": password, "client_secret": clientSecret,
                        "nested": ["refresh_token": refreshToken, "list": [["password": password]] as [any Sendable]] as [String: any Sendable],
                    ], timeout: 1))
                }
                // Basic credentials and an API key in the query.
                _ = await record { () throws(NetworkError) in try await net.perform(TestRequest<FaultOK>(basic, path, timeout: 1)) }
                _ = await record { () throws(NetworkError) in try await net.perform(TestRequest<FaultOK>(apiKeyQuery, path, timeout: 1)) }
            }
            // user:password in a URL: a redirect whose Location carries them, to a healthy answer and broken ones.
            for path in ["/redirect-userinfo/ok", "/redirect-userinfo/close", "/redirect-userinfo/redirect-loop",
                         "/redirect-userinfo/garbage-status"] {
                _ = await record { () throws(NetworkError) in
                    try await net.perform(TestRequest<FaultOK>(withHeaders, path, timeout: 1))
                }
            }
            // A retried request: each failed attempt is a note in the log.
            _ = await record { () throws(NetworkError) in
                let request = TestRequest<FaultOK>(withHeaders, "/close" + endpointWithKey, params: ["token": token], timeout: 1)
                request.retryPolicy = RetryPolicy(maximumAttempts: 2, baseDelay: .milliseconds(1), retriesTransportErrors: true)
                return try await net.perform(request)
            }
            // A server that echoes the request back: the secrets come back in the response body.
            let echoed = await record { () throws(NetworkError) in
                try await net.perform(TestRequest<Echo>(echo.provider(headers: secretHeaders), "/echo" + endpointWithKey,
                                                        method: .post, params: ["password": password, "token": token], timeout: 5))
            }
            // The echo decoded as the wrong type: a serialization error about a body full of secrets.
            _ = await record { () throws(NetworkError) in
                try await net.perform(TestRequest<FaultOK>(echo.provider(headers: secretHeaders), "/echo" + endpointWithKey,
                                                           method: .post, params: ["password": password], timeout: 5))
            }
            // The canaries really were sent (so their absence from the log means something).
            #expect(echoed?.header("Authorization") == "Bearer \(bearer)")
            #expect(echoed?.body.contains(password) == true)
            _ = await record { () throws(NetworkError) in
                let request = TestRequest<Echo>(echo.provider(headers: secretHeaders), "/echo", method: .post, timeout: 5)
                request.body = .multipart(MultipartFormData().text("user", "ada").text("password", multipartPassword))
                return try await net.perform(request)
            }
            // The request as a curl command line, redacted.
            let curl = await record { () throws(NetworkError) in
                try await net.curlCommand(for: TestRequest<FaultOK>(withHeaders, "/ok" + endpointWithKey, method: .post,
                                                                    params: ["password": password]))
            }
            findings.add(curl ?? "")
            #expect(curl?.contains("curl") == true)
        }

        /// Runs `body` with the three servers the canary requests need.
        static func withServers(_ body: (FaultServer, TestServer, Int) async throws -> Void) async throws {
            try await withFaultServer { faults in
                try await offCooperativePool { try TestServer.start() }.whileRunning { echo in
                    try await body(faults, echo, try closedPort())
                }
            }
        }

        static func expectNoCanary(in texts: [String], where place: String) {
            for canary in canaries {
                let leaks = texts.filter { $0.contains(canary) }
                #expect(leaks.isEmpty, "\(canary) appears in \(place): \(leaks.prefix(3))")
            }
        }

        @Test("No canary in the log handler's entries or in any error")
        func logHandlerAndErrors() async throws {
            try await Self.withServers { faults, echo, refusedPort in
                let log = LogCollector()
                let net = makeManager(log: log)
                let findings = SecretFindings()
                try await Self.runEverything(on: net, faults: faults, echo: echo, refusedPort: refusedPort, findings: findings)
                #expect(findings.errors >= 20, "the failures were exercised: \(findings.errors) errors")
                #expect(log.all.count >= 60, "the log was written: \(log.all.count) entries")
                #expect(log.text.contains("<redacted>"))
                Self.expectNoCanary(in: log.all, where: "the log")
                Self.expectNoCanary(in: findings.all, where: "an error")
            }
        }

        @Test("No canary on standard error, where the log goes without a handler")
        func standardError() async throws {
            try await Self.withServers { faults, echo, refusedPort in
                let net = NetworkManager()  // no log handler: the log goes to standard error
                net.isVerbose = true        // the default in a debug build only
                #expect(net.isVerbose && net.logHandler == nil)
                let findings = SecretFindings()
                let capture = try StandardErrorCapture()
                do {
                    try await Self.runEverything(on: net, faults: faults, echo: echo, refusedPort: refusedPort, findings: findings)
                } catch {
                    _ = await capture.finish()
                    throw error
                }
                let captured = await capture.finish()
                #expect(captured.contains("[NetworkLayer #"), "the log reached standard error")
                #expect(captured.contains("<redacted>"))
                Self.expectNoCanary(in: [captured], where: "standard error")
                Self.expectNoCanary(in: findings.all, where: "an error")
            }
        }

        @Test("No canary in the error for a refused endpoint that carries a secret query item")
        func refusedEndpointWithASecret() async throws {
            try await withFaultServer { faults in
                let log = LogCollector()
                let net = makeManager(log: log)
                let findings = SecretFindings()
                for endpoint in ["/ok?token=\(Self.refusedEndpointToken)\n", "/ok\r\n?api_key=\(Self.refusedEndpointToken)"] {
                    let outcome = await FaultOutcome { () throws(NetworkError) in
                        try await net.perform(TestRequest<FaultOK>(faults.provider(), endpoint, timeout: 1))
                    }
                    guard case .invalidRequest? = outcome.error else {
                        Issue.record("\(endpoint.debugDescription): expected .invalidRequest, got \(outcome)")
                        continue
                    }
                    findings.add(outcome.error!)
                }
                #expect(findings.errors == 2)
                Self.expectNoCanary(in: findings.all, where: "an error")
                Self.expectNoCanary(in: log.all, where: "the log")
            }
        }
    }
}
