import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// `NetworkLayerInfo.version` is the version users were given: the newest release in
/// CHANGELOG.md, and what every request tells the server in its `User-Agent`.
@Suite("The library's version", .sharing)
struct NetworkLayerInfoTests {
    /// The newest released version in CHANGELOG.md: the first `## [X.Y.Z]` heading ("Unreleased" is not one).
    static func newestReleaseInChangelog() throws -> String? {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        for line in text.split(separator: "\n") where line.hasPrefix("## [") {
            let name = line.dropFirst(4).prefix { $0 != "]" }
            if name.lowercased() != "unreleased" { return String(name) }
        }
        return nil
    }

    /// The version of README.md's install line, `.package(url: "…", from: "X.Y.Z")`.
    static func readmeInstallVersion() throws -> String? {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        guard let line = text.split(separator: "\n").first(where: { $0.contains(".package(url:") && $0.contains("from:") }),
              let from = line.range(of: "from: \"") else { return nil }
        return String(line[from.upperBound...].prefix { $0 != "\"" })
    }

    @Test("The README's install line names NetworkLayerInfo.version, the last release")
    func readmeInstallLineNamesTheVersion() throws {
        #expect(try Self.readmeInstallVersion() == NetworkLayerInfo.version,
                "README.md's install line must name the last release, NetworkLayerInfo.version: a version a user can resolve")
    }

    @Test("NetworkLayerInfo.version, the User-Agent a server receives and CHANGELOG.md's newest release agree")
    func versionAgreesEverywhere() async throws {
        let version = NetworkLayerInfo.version
        let parts = version.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) },
                "\(version) is not major.minor.patch")
        #expect(try Self.newestReleaseInChangelog() == version,
                "CHANGELOG.md's newest release is not NetworkLayerInfo.version (\(version)): cutting a release changes both")

        let server = try await TestServer.shared()
        let echo = try await Net.perform(TestRequest<Echo>(server.provider(), "/echo"))
        #expect(echo.header("User-Agent") == "NetworkLayer/\(version)")
    }
}

private extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
