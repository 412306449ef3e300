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

    /// The release README.md names as the last one: "`X.Y.Z` is the last release, the commit `revision: "…"`".
    static func readmeLastRelease() throws -> (version: String, commit: String)? {
        let text = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        guard let sentence = text.range(of: "` is the last release, the commit `revision: \""),
              let open = text[..<sentence.lowerBound].lastIndex(of: "`") else { return nil }
        let commit = text[sentence.upperBound...].prefix { $0 != "\"" }
        return (String(text[text.index(after: open)..<sentence.lowerBound]), String(commit))
    }

    @Test("The README names NetworkLayerInfo.version as the last release, and .ci/api-baseline's commit as its revision")
    func readmeNamesTheRelease() throws {
        let named = try #require(try Self.readmeLastRelease(), "README.md does not say which release is the last one")
        #expect(named.version == NetworkLayerInfo.version,
                "README.md says \(named.version) is the last release; NetworkLayerInfo.version says \(NetworkLayerInfo.version)")
        let baseline = try String(contentsOf: repositoryRoot.appendingPathComponent(".ci/api-baseline"), encoding: .utf8)
        #expect(baseline.contains("commit \(named.commit)\n") && baseline.contains("version \(NetworkLayerInfo.version)\n"),
                "README.md's revision \(named.commit) is not the release .ci/api-baseline names")
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
