import Foundation
import Testing
import TestScheduling

/// Plain `swift test` runs the suites in parallel on a two-core machine, so a test that measures
/// latency, memory or a process-wide count runs alone (`.measuring`) and every other one steps
/// aside for it (`.sharing`). A suite with neither would run beside a measuring test and make it
/// fail: this rule catches the suite before that happens. See CONTRIBUTING.md, "Tests that measure".
@Suite("Every suite says how it uses the machine", .sharing)
struct MachineUseRuleTests {
    /// The Swift files of every test target (Tests/, without the TestScheduling module itself).
    static func testSources() throws -> [URL] {
        let files = FileManager.default.enumerator(at: testsDirectory, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL } ?? []
        return files.filter { $0.pathExtension == "swift" && !$0.path.contains("/TestScheduling/") }
    }

    @Test("Every @Suite carries .sharing or .measuring, and every file with a @Test has a @Suite")
    func everySuiteSaysHowItUsesTheMachine() throws {
        let sources = try Self.testSources()
        #expect(sources.count > 50, "found only \(sources.count) test sources under \(testsDirectory.path)")
        var unmarked: [String] = []
        for file in sources {
            let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.hasPrefix("//") }
            let name = file.path.replacingOccurrences(of: testsDirectory.path + "/", with: "")
            let suites = lines.filter { $0.hasPrefix("@Suite") }
            for suite in suites where !suite.contains(".sharing") && !suite.contains(".measuring") {
                unmarked.append("\(name): \(suite) (add .sharing, or .measuring if it measures time or memory)")
            }
            if suites.isEmpty, lines.contains(where: { $0.hasPrefix("@Test") }) {
                unmarked.append("\(name): tests outside a @Suite (put them in a suite that carries .sharing or .measuring)")
            }
        }
        #expect(unmarked.isEmpty, "\(unmarked.joined(separator: "\n"))")
    }
}
