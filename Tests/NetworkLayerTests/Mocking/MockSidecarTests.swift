import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Sidecars (`<name>.meta.json`): failures instead of answers, and every value checked, because a
/// sidecar is input from outside the program and a hostile number must never trap.
@Suite("Mock sidecars", .sharing)
struct MockSidecarTests {
    /// A provider whose port has nothing listening: any network attempt fails with `.reachability`.
    let offline = TestProvider(host: "127.0.0.1", httpScheme: .http, port: try! closedPort())

    @Test("A sidecar error is the same NetworkError case a live failure is, saying it was mocked and naming the sidecar",
          arguments: ["reachability", "timeOut", "invalidCertificate", "transport", "cancelled"])
    func sidecarErrorIsTheLiveCase(kind: String) async throws {
        let mocks = try MockDirectory()
        defer { mocks.remove() }
        try mocks.write("Down", sidecar: #"{"error": "\#(kind)"}"#)  // no body file needed

        let error = await networkError {
            try await makeManager(mocks: mocks.url).perform(MockedRequest<User>(offline, "/users/7", mock: "Down"))
        }
        #expect(error?.caseName == kind)
        let reason = error?.context?.reason ?? ""
        #expect(reason.contains("mocked"), "\(reason)")
        #expect(reason.contains(mocks.sidecarPath(of: "Down")), "\(reason)")
        #expect(error?.context?.request == "GET http://127.0.0.1:\(offline.port ?? 0)/users/7")
        #expect(error?.errorDescription?.contains("mocked") == true)
    }

    @Test("A sidecar failure goes through the retry policy and the log, as a live one does")
    func sidecarFailureIsRetriedAndLogged() async throws {
        let mocks = try MockDirectory()
        defer { mocks.remove() }
        try mocks.write("Down", sidecar: #"{"error": "reachability"}"#)
        let log = LogCollector()
        let provider = RetryingProvider(port: offline.port, retryPolicy: RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(10)))
        let error = await networkError {
            try await makeManager(mocks: mocks.url, log: log).perform(MockedRequest<User>(provider, "/x", mock: "Down"))
        }
        #expect(error?.caseName == "reachability")
        #expect(log.text.contains("attempt 1 of 3 failed"))
        #expect(log.text.contains("attempt 2 of 3 failed"))
        #expect(!log.text.contains("attempt 3 of 3 failed"))
        #expect(log.text.contains("[MOCK]"))
    }

    @Test("A sidecar error wins over a body file beside it")
    func sidecarErrorWinsOverABody() async throws {
        let mocks = try MockDirectory()
        defer { mocks.remove() }
        try mocks.write("Down", body: #"{"id": 7, "name": "Ada"}"#, sidecar: #"{"error": "reachability", "headers": {"X-A": "b"}}"#)
        let error = await networkError {
            try await makeManager(mocks: mocks.url).perform(MockedRequest<User>(offline, "/x", mock: "Down"))
        }
        #expect(error?.caseName == "reachability")
    }

    @Test("A sidecar error waits for its delay first")
    func sidecarErrorWaitsForItsDelay() async throws {
        let mocks = try MockDirectory()
        defer { mocks.remove() }
        try mocks.write("SlowDown", sidecar: #"{"error": "transport", "delay": 0.3}"#)
        let (error, elapsed) = await measure {
            await networkError { try await makeManager(mocks: mocks.url).perform(MockedRequest<User>(offline, "/x", mock: "SlowDown")) }
        }
        #expect(error?.caseName == "transport")
        #expect(elapsed >= .milliseconds(300))
    }

    @Test("A sidecar error whose delay exceeds the request's timeout times out at the timeout", .measuring)
    func sidecarErrorDelayBeyondTheTimeoutTimesOut() async throws {
        let mocks = try MockDirectory()
        defer { mocks.remove() }
        try mocks.write("SlowDown", sidecar: #"{"error": "transport", "delay": 30}"#)
        let (error, elapsed) = await measure {
            await networkError {
                try await makeManager(mocks: mocks.url).perform(MockedRequest<User>(offline, "/x", mock: "SlowDown", timeout: 0.2))
            }
        }
        #expect(error?.caseName == "timeOut")
        #expect(error?.context?.reason?.contains("exceeds the timeout") == true)
        #expect(elapsed >= .milliseconds(200) && elapsed < .seconds(10))
    }

    @Test("An unknown error name is .invalidRequest naming the sidecar, the value and the names allowed")
    func unknownErrorNameIsAClearError() async throws {
        let mocks = try MockDirectory()
        defer { mocks.remove() }
        try mocks.write("Odd", sidecar: #"{"error": "timeout\r\nX-Forged: 1"}"#)
        let error = await networkError {
            try await makeManager(mocks: mocks.url).perform(MockedRequest<User>(offline, "/x", mock: "Odd"))
        }
        guard case .invalidRequest(let context) = error else { Issue.record("got \(String(describing: error))"); return }
        let reason = context.reason ?? ""
        #expect(reason.contains(mocks.sidecarPath(of: "Odd")))
        #expect(reason.contains(#"timeout\r\nX-Forged: 1"#), "control characters are shown escaped: \(reason)")
        #expect(!reason.contains("\r\n"))
        #expect(reason.contains(#""timeOut""#) && reason.contains(#""invalidCertificate""#))
        #expect(context.request != nil)
    }

    @Test("An error together with a statusCode is refused as ambiguous")
    func errorWithAStatusIsRefused() async throws {
        let mocks = try MockDirectory()
        defer { mocks.remove() }
        try mocks.write("Both", body: "{}", sidecar: #"{"error": "timeOut", "statusCode": 200}"#)
        let error = await networkError {
            try await makeManager(mocks: mocks.url).perform(MockedRequest<User>(offline, "/x", mock: "Both"))
        }
        guard case .invalidRequest(let context) = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(context.reason?.contains("both") == true)
    }

    static let hostileDelays = ["-1", "-0.001", "3600.001", "86400", "1e16", "1e308", "1.7976931348623157e308",
                                "1e400", "-1e400", "\"NaN\"", "\"Infinity\"", "\"0.5\"", "true", "[]", "99999999999999999999999"]

    @Test("A hostile sidecar delay is .invalidRequest naming the sidecar, at once and without a trap", .measuring, arguments: hostileDelays)
    func hostileDelayIsAClearError(delay: String) async throws {
        let mocks = try MockDirectory()
        defer { mocks.remove() }
        try mocks.write("Hostile", body: #"{"id": 1, "name": "x"}"#, sidecar: #"{"delay": \#(delay)}"#)
        let (error, elapsed) = await measure {
            await networkError {
                try await makeManager(mocks: mocks.url).perform(MockedRequest<User>(offline, "/x", mock: "Hostile", timeout: .seconds(Int64.max)))
            }
        }
        guard case .invalidRequest(let context) = error else { Issue.record("\(delay) gave \(String(describing: error))"); return }
        #expect(context.reason?.contains(mocks.sidecarPath(of: "Hostile")) == true, "\(context.reason ?? "")")
        #expect(elapsed < .seconds(5))
    }

    @Test("A delay of zero, minus zero or the whole hour is accepted, with an infinite timeout too",
          arguments: ["0", "-0", "0.01", "3600"])
    func boundaryDelaysAreAccepted(delay: String) async throws {
        let data = Data(#"{"delay": \#(delay)}"#.utf8)
        let sidecar = try MockStore.Sidecar.parse(data, path: "S.meta.json")
        #expect(sidecar.delayDuration <= MockAnswer.maximumDelay)
        guard delay != "3600" else { return }  // an hour is valid, but not waited for here
        let mocks = try MockDirectory()
        defer { mocks.remove() }
        try mocks.write("Fine", body: #"{"id": 1, "name": "x"}"#, sidecar: #"{"delay": \#(delay)}"#)
        let user = try await makeManager(mocks: mocks.url).perform(MockedRequest<User>(offline, "/x", mock: "Fine", timeout: .seconds(Int64.max)))
        #expect(user.id == 1)
    }

    @Test("A sidecar status outside 100...599, or not an integer, is .invalidRequest naming the sidecar",
          arguments: ["0", "99", "600", "-200", "1000", "9223372036854775807", "9223372036854775808", "-9223372036854775809",
                      "1e30", "200.5", "\"200\"", "null"])
    func hostileStatusIsAClearError(status: String) async throws {
        let mocks = try MockDirectory()
        defer { mocks.remove() }
        try mocks.write("Hostile", body: #"{"id": 1, "name": "x"}"#, sidecar: #"{"statusCode": \#(status)}"#)
        let outcome = await FaultOutcome { () throws(NetworkError) in
            try await makeManager(mocks: mocks.url).perform(MockedRequest<User>(offline, "/x", mock: "Hostile"))
        }
        if status == "null" {
            // An explicit null is an absent field: status 200.
            guard case .success = outcome else { Issue.record("null gave \(outcome)"); return }
            return
        }
        guard case .failure(.invalidRequest(let context)) = outcome else { Issue.record("\(status) gave \(outcome)"); return }
        #expect(context.reason?.contains(mocks.sidecarPath(of: "Hostile")) == true, "\(context.reason ?? "")")
    }

    @Test("Random sidecar numbers parse to a bounded delay and status or a clear error, never a trap")
    func randomSidecarNumbersNeverTrap() throws {
        var random = SeededRandom(seed: 13)
        for _ in 0..<2_000 {
            let delay = Self.randomNumberText(using: &random)
            let status = Self.randomNumberText(using: &random)
            let data = Data(#"{"statusCode": \#(status), "delay": \#(delay)}"#.utf8)
            do throws(NetworkError) {
                let sidecar = try MockStore.Sidecar.parse(data, path: "/m/R.meta.json")
                let parsedDelay = sidecar.delay ?? -1
                #expect(parsedDelay >= 0 && parsedDelay <= 3600, "delay \(delay)")
                #expect((100...599).contains(sidecar.statusCode ?? 0), "status \(status)")
                #expect(sidecar.delayDuration <= MockAnswer.maximumDelay)
            } catch {
                guard case .invalidRequest(let context) = error else { Issue.record("\(delay)/\(status): \(error)"); continue }
                #expect(context.reason?.contains("/m/R.meta.json") == true)
            }
        }
    }

    /// A JSON number of any size and sign: integers, decimals, exponents up to ±400.
    static func randomNumberText(using random: inout SeededRandom) -> String {
        let sign = Bool.random(using: &random) ? "-" : ""
        switch Int.random(in: 0..<4, using: &random) {
        case 0: return sign + String(Int.random(in: 0...700, using: &random))
        case 1: return sign + String(UInt64.random(in: 0...UInt64.max, using: &random)) + String(repeating: "9", count: Int.random(in: 0...3, using: &random))
        case 2: return sign + String(Int.random(in: 0...4000, using: &random)) + "." + String(Int.random(in: 0...999, using: &random))
        default: return sign + String(Int.random(in: 1...9, using: &random)) + "e" + String(Int.random(in: -400...400, using: &random))
        }
    }

    @Test("A sidecar without a body file answers with its status and an empty body")
    func sidecarWithoutBodyAnswersEmpty() async throws {
        let mocks = try MockDirectory()
        defer { mocks.remove() }
        try mocks.write("Deleted", sidecar: #"{"statusCode": 204, "headers": {}}"#)
        let raw = try await makeManager(mocks: mocks.url).perform(MockedRequest<RawResponse>(RawResponseProvider(), "/x", mock: "Deleted"))
        #expect(raw.statusCode == 204)
        #expect(raw.body.isEmpty)
    }
}
