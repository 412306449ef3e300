import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// `isVerbose` follows the app's build configuration (issue 28): on in a debug build, as the
/// original design promised for development, and off in a release build, so that a Linux service
/// does not write every request's headers and bodies to standard error (journald).
///
/// The debug half runs the `RequestProbe` built beside this test binary; the release half builds
/// the same probe with `swift build -c release` once per run (its own scratch path,
/// `.build-release-probe/`, about 15 s the first time, seconds after) and runs it: the only honest
/// way to see what `#if DEBUG` gives when the library is compiled as a release build compiles it.
@Suite("The verbose log's default", .sharing)
struct VerboseDefaultTests {
    /// Whether this test binary, and so the library and probe built with it, is a debug build.
    static let thisBuildIsDebug: Bool = {
        #if DEBUG
        return true
        #else
        return false
        #endif
    }()

    @Test("In a debug build a manager and Net start verbose, and a request writes its log")
    func debugBuildLogs() async throws {
        // A test binary built in release (`swift test -c release`) has a release probe beside it.
        let isDebug = Self.thisBuildIsDebug
        let server = try await TestServer.shared()
        let report = try await RequestProbe.send(.defaultLog("/json"), port: server.port)
        #expect(report.outcome == "success", "\(report)")
        #expect(report.isVerbose == isDebug)
        #expect(report.sharedIsVerbose == isDebug)
        #expect(isDebug ? (report.logTexts ?? 0) >= 2 : report.logTexts == 0, "a request and its response: \(report.logTexts ?? -1) log texts")
        #expect(NetworkManager().isVerbose == isDebug)
    }

    @Test("In a release build a manager and Net start quiet, and a request writes no log")
    func releaseBuildIsQuiet() async throws {
        let release = try await RequestProbe.releaseBuild()
        let server = try await TestServer.shared()
        let report = try await RequestProbe.send(.defaultLog("/json"), port: server.port, probe: release)
        #expect(report.outcome == "success", "the request was made: \(report)")
        #expect(report.isVerbose == false)
        #expect(report.sharedIsVerbose == false)
        #expect(report.logTexts == 0)
    }
}
