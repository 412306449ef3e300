import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

extension Reliability {
    /// A server that refuses, hangs, stalls, drips, closes, resets or sends broken HTTP: every
    /// request ends in the precise `NetworkError` within its timeout plus 250 ms, the error says
    /// what happened, and the next request on the same manager succeeds.
    @Suite("Server faults", .sharedServers(faultModes: [.serve, .refuse, .backlog]), .sharing)
    struct FaultInjectionTests {
        /// One way for a server to misbehave, and what the library must make of it.
        struct Fault: Sendable, CustomTestStringConvertible {
            /// What fault_server.py does: its mode, and the path requested in serve mode.
            var mode: FaultServer.Mode = .serve
            let path: String
            /// The `NetworkError` case expected.
            let expectedCase: String
            /// The libcurl codes the underlying ``CurlError`` may carry; empty when the library
            /// itself detects the fault (so there is no libcurl error); `nil` when either is fine.
            let curlCodes: Set<Int>?
            /// Words the context's `reason` must contain (the library's words, or libcurl's message).
            let reasonMentions: [String]
            /// Words the library's own part of the reason must not contain (a wrong cause).
            var reasonMustNotClaim: [String] = []
            /// Whether the fault needs a server of its own: libcurl retries a request that dies
            /// without an answer on its other kept-alive connections to the same server, and
            /// reports the last failure (see `closeOnKeptAliveConnections`).
            var needsFreshServer = false

            /// The request's timeout: short where the timeout is what ends the request, and
            /// longer where the server fails at once (so a loaded machine cannot turn a fast
            /// failure into a timeout).
            var timeout: TimeInterval { expectedCase == "timeOut" ? 1 : 2 }

            var testDescription: String { mode == .serve ? path : "--mode \(mode.rawValue)" }
        }

        static let faults: [Fault] = [
            // Connect-time faults.
            Fault(mode: .refuse, path: "/ok", expectedCase: "reachability", curlCodes: [7],
                  reasonMentions: ["refused"]),
            // A full accept queue: the SYN is dropped, connect() neither succeeds nor fails, and the
            // request's own timeout ends it; libcurl's message says it was the connect that timed out.
            Fault(mode: .backlog, path: "/ok", expectedCase: "timeOut", curlCodes: [28],
                  reasonMentions: ["within the timeout", "onnect"]),
            // Read-time faults: the timeout ends them.
            Fault(path: "/hang", expectedCase: "timeOut", curlCodes: [28], reasonMentions: ["within the timeout"]),
            Fault(path: "/stall-after-headers", expectedCase: "timeOut", curlCodes: [28],
                  reasonMentions: ["within the timeout", "0 out of 100 bytes"]),
            Fault(path: "/drip", expectedCase: "timeOut", curlCodes: [28], reasonMentions: ["within the timeout"]),
            // Broken connections.
            Fault(path: "/close", expectedCase: "transport", curlCodes: [52], reasonMentions: ["without answering"],
                  needsFreshServer: true),
            Fault(path: "/short-body", expectedCase: "transport", curlCodes: [18],
                  reasonMentions: ["before the body was complete"]),
            Fault(path: "/lying-length", expectedCase: "transport", curlCodes: [18],
                  reasonMentions: ["before the body was complete"]),
            Fault(path: "/reset-mid-body", expectedCase: "transport", curlCodes: [56], reasonMentions: ["reset"]),
            // Broken framing and encoding.
            Fault(path: "/bad-chunk", expectedCase: "transport", curlCodes: [56], reasonMentions: ["chunk"],
                  reasonMustNotClaim: ["reset", "connection broke"]),
            Fault(path: "/truncated-chunk", expectedCase: "transport", curlCodes: [18],
                  reasonMentions: ["before the body was complete"]),
            Fault(path: "/corrupt-gzip", expectedCase: "transport", curlCodes: [61], reasonMentions: ["corrupt"]),
            // Broken headers.
            Fault(path: "/garbage-status", expectedCase: "transport", curlCodes: [1, 8], reasonMentions: ["not valid HTTP"]),
            Fault(path: "/nul-header", expectedCase: "transport", curlCodes: [8], reasonMentions: ["not valid HTTP"]),
            Fault(path: "/bare-cr-header", expectedCase: "transport", curlCodes: nil, reasonMentions: ["CR"]),
            Fault(path: "/huge-header", expectedCase: "transport", curlCodes: [27], reasonMentions: ["header"],
                  reasonMustNotClaim: ["libcurl reported error", "memory"]),
            Fault(path: "/huge-header-line", expectedCase: "transport", curlCodes: [27],
                  reasonMentions: ["a response header line is longer than libcurl accepts", "100 KB", "shorter headers"],
                  reasonMustNotClaim: ["memory"]),
            Fault(path: "/many-headers", expectedCase: "transport", curlCodes: [56], reasonMentions: ["header"],
                  reasonMustNotClaim: ["reset", "connection broke"]),
            Fault(path: "/conflicting-length", expectedCase: "transport", curlCodes: nil, reasonMentions: ["Content-Length"]),
            // Redirects the library must not follow.
            Fault(path: "/redirect-loop", expectedCase: "transport", curlCodes: [], reasonMentions: ["more than 10 times"]),
            Fault(path: "/redirect-file", expectedCase: "transport", curlCodes: [], reasonMentions: ["file:"],
                  reasonMustNotClaim: ["not a URL"]),
            Fault(path: "/redirect-ftp", expectedCase: "transport", curlCodes: [], reasonMentions: ["ftp:"]),
            // Redirects that use up the timeout: the error names the request's timeout, not what was left of it.
            Fault(path: "/slow-redirect", expectedCase: "timeOut", curlCodes: nil, reasonMentions: ["timeout"],
                  reasonMustNotClaim: ["timeout of 0."]),
        ]

        @Test("A misbehaving server gives a precise NetworkError within the timeout, and the manager keeps working",
              arguments: faults)
        func misbehavingServer(_ fault: Fault) async throws {
            if fault.needsFreshServer {
                try await withFaultServer { server in try await Self.check(fault, against: server, thenAsk: server) }
            } else {
                try await Self.check(fault, against: try SharedServers.fault(fault.mode), thenAsk: try SharedServers.fault(.serve))
            }
        }

        @Test("A server that closes its kept-alive connections without answering: .transport saying so")
        func closeOnKeptAliveConnections() async throws {
            try await withFaultServer { server in
                let net = makeManager()
                let provider = server.provider()
                // Eight requests at once: eight connections, kept alive in libcurl's cache.
                await withTaskGroup(of: Void.self) { group in
                    for _ in 0..<8 {
                        group.addTask { _ = try? await net.perform(TestRequest<FaultOK>(provider, "/slow-ok", timeout: 5)) }
                    }
                }
                // libcurl sends /close on a cached connection; it dies unanswered; libcurl retries on the
                // next cached one, up to five times ("Connection died, tried 5 times before giving up").
                let outcome = await FaultOutcome { () throws(NetworkError) in
                    try await net.perform(TestRequest<FaultOK>(provider, "/close", timeout: 2))
                }
                guard case .transport(let context)? = outcome.error else {
                    Issue.record("expected .transport, got \(outcome)")
                    return
                }
                #expect(context.reason?.contains("without answering") == true, "\(String(describing: context.reason))")
                let ok = try await net.perform(TestRequest<FaultOK>(provider, "/ok", timeout: 5))
                #expect(ok.ok)
            }
        }

        /// Sends `fault`'s request to `target`, checks the error, then asks `okServer` for `/ok`
        /// on the same manager.
        static func check(_ fault: Fault, against target: FaultServer, thenAsk okServer: FaultServer) async throws {
            let net = makeManager()
            let provider = target.provider()
            await learnEngineThread(via: okServer.provider())
            let ((outcome, elapsed), waited) = await withCoreWaits {
                await timedOnOwnExecutor {
                    await FaultOutcome { () throws(NetworkError) in
                        try await net.perform(TestRequest<FaultOK>(provider, fault.path, timeout: fault.timeout))
                    }
                }
            }
            // Never a hang: within the timeout plus 250 ms (plus what the machine made the threads wait).
            #expect(elapsed < .seconds(fault.timeout) + .milliseconds(250) + waited,
                    "\(fault.testDescription) took \(elapsed) (waits for a core: \(waited)): \(outcome.error?.errorDescription ?? "success")")

            verify(fault, outcome, target: target)

            // The library keeps working: the next request on the same manager succeeds.
            let ok = try await net.perform(TestRequest<FaultOK>(okServer.provider(), "/ok", timeout: 5))
            #expect(ok.ok)
        }

        static func verify(_ fault: Fault, _ outcome: FaultOutcome<FaultOK>, target: FaultServer) {
            guard let error = outcome.error else {
                Issue.record("\(fault.path): the request succeeded; a broken answer was reported as a success")
                return
            }
            #expect(error.caseName == fault.expectedCase, "\(fault.path): \(error)")
            let context = error.context
            let reason = context?.reason ?? ""
            for word in fault.reasonMentions {
                #expect(reason.contains(word), "\(fault.path): the reason \"\(reason)\" does not mention \"\(word)\"")
            }
            // The library's own words come before libcurl's message, which is in parentheses.
            let ownWords = reason.components(separatedBy: " (").first ?? reason
            for word in fault.reasonMustNotClaim {
                #expect(!ownWords.contains(word), "\(fault.path): the reason \"\(reason)\" claims \"\(word)\"")
            }
            if let codes = fault.curlCodes, codes.isEmpty {
                #expect(error.curlCode == nil, "\(fault.path): \(error)")
            } else if let codes = fault.curlCodes {
                #expect(error.curlCode.map(codes.contains) == true, "\(fault.path): \(error)")
            }
            // The description names the request and the cause; the suggestion says what to try.
            let description = error.errorDescription ?? ""
            #expect(description.contains("GET http://127.0.0.1:\(target.port)\(fault.path)"), "\(description)")
            #expect(!reason.isEmpty && description.contains(reason), "\(description)")
            #expect(error.recoverySuggestion?.isEmpty == false)
        }

        @Test("A manager keeps working through every fault in a row, on the same connections")
        func everyFaultInARow() async throws {
            let provider = try SharedServers.fault(.serve).provider()
            let net = makeManager()
            for fault in Self.faults where fault.mode == .serve && fault.expectedCase != "timeOut" {
                let outcome = await FaultOutcome { () throws(NetworkError) in
                    try await net.perform(TestRequest<FaultOK>(provider, fault.path, timeout: fault.timeout))
                }
                #expect(outcome.error != nil, "\(fault.path)")
                let ok = try await net.perform(TestRequest<FaultOK>(provider, "/ok", timeout: 5))
                #expect(ok.ok, "after \(fault.path)")
            }
        }
    }
}
