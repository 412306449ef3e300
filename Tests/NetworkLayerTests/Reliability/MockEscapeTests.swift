import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

extension Reliability {
    /// Mock names and endpoints that try to leave the mock directory are refused, and nothing
    /// outside it is read.
    ///
    /// Each case builds its own tree: `mocks/` (the mock directory, with a few symbolic links
    /// pointing out of it) and `outside/Secret.json`, a file that would decode as the answer, so
    /// a request that read it would succeed. "Nothing outside read" is checked by the kernel:
    /// an inotify watch on `outside/` and on the files in it reports any open or read, by anyone,
    /// including through a symbolic link.
    @Suite("Mock directory escapes", .sharing)
    struct MockEscapeTests {
        struct Escape: Sendable, CustomTestStringConvertible {
            enum Expectation: Sendable {
                /// Must be `.invalidRequest`, saying the name is refused.
                case refused
                /// Not a way out on Linux (a lookalike character): refused, or looked for inside
                /// the mock directory only (`.mockNotFound` naming a path inside it).
                case staysInside
                /// The body is a legitimate mock inside; only its sidecar points outside. Refused,
                /// or answered without the sidecar, but the file outside must not be read.
                case sidecarOutside
            }

            let label: String
            /// The mock file name (`mockedResponseFilename`), or `nil` to use the endpoint.
            let name: (@Sendable (URL) -> String)?
            var endpoint = "/x"
            let expectation: Expectation

            var testDescription: String { label }

            /// A name given as text, or built from the tree's root.
            static func named(_ name: String, _ expectation: Expectation = .refused) -> Escape {
                Escape(label: name.debugDescription, name: { _ in name }, expectation: expectation)
            }

            static func endpoint(_ endpoint: String) -> Escape {
                Escape(label: "endpoint \(endpoint.debugDescription)", name: nil, endpoint: endpoint, expectation: .refused)
            }
        }

        static let escapes: [Escape] = [
            // Dot-dot in every arrangement.
            .named("../outside/Secret"), .named("../../etc/passwd"), .named("..//outside/Secret"),
            .named("./../outside/Secret"), .named("GET/../../outside/Secret"), .named("a/b/../../../outside/Secret"),
            .named(".."), .named("../"), .named(""), .named(String(repeating: "../", count: 64) + "outside/Secret"),
            // Absolute paths.
            .named("/etc/passwd"), .named("~/Secret"), .named("~root/Secret"),
            Escape(label: "<root>/outside/Secret", name: { $0.appendingPathComponent("outside/Secret").path }, expectation: .refused),
            Escape(label: "//<root>/outside/Secret", name: { "/" + $0.appendingPathComponent("outside/Secret").path }, expectation: .refused),
            // Percent-encodings, single, double, mixed case, overlong UTF-8.
            .named("%2e%2e/outside/Secret"), .named("%2e%2e%2foutside%2fSecret"), .named("..%2foutside%2fSecret"),
            .named("%252e%252e%252foutside%252fSecret"), .named("%2E%2E/outside/Secret"), .named("..%5coutside%5cSecret"),
            .named("..%c0%afoutside%c0%afSecret"), .named("..%00/outside/Secret"),
            // Backslashes.
            .named("..\\outside\\Secret"), .named("\\..\\outside\\Secret"), .named("..\\/outside/Secret"),
            // NUL and other control characters (a C API would stop reading at the NUL).
            .named("../outside/Secret\0"), .named("Legit\0/../../outside/Secret"), .named("..\0/outside/Secret"),
            .named("../outside/Secret\n"), .named("\r\n../outside/Secret"), .named("\t../outside/Secret"),
            // Unicode lookalikes of '.' and '/': not separators on Linux, so they cannot leave.
            .named("\u{FF0E}\u{FF0E}/outside/Secret", .staysInside), .named("\u{2025}/outside/Secret", .staysInside),
            .named("..\u{2215}outside\u{2215}Secret", .staysInside), .named("..\u{FF0F}outside\u{FF0F}Secret", .staysInside),
            .named(".\u{200B}./outside/Secret", .staysInside), .named("..\u{2044}outside\u{2044}Secret", .staysInside),
            // Symbolic links inside the mock directory that lead out of it.
            .named("EvilLink"), .named("RelativeLink"), .named("OutDir/Secret"), .named("Chain"),
            Escape(label: "sidecar link", name: { _ in "Sidecar" }, expectation: .sidecarOutside),
            // Endpoints, for requests without a mock name (the METHOD/path layout).
            .endpoint("/../../outside/Secret"), .endpoint("/%2e%2e/%2e%2e/outside/Secret"),
            .endpoint("/%2e%2e%2f%2e%2e%2foutside%2fSecret"), .endpoint("/..%5c..%5coutside%5cSecret"),
            .endpoint("/%00/../outside/Secret"), .endpoint("/escape/Secret"),
        ]

        @Test("A mock name or endpoint that tries to leave the mock directory is refused, and nothing outside is read",
              arguments: escapes)
        func escapeIsRefused(_ escape: Escape) async throws {
            let root = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: root) }
            let mocks = try Self.makeTree(at: root)
            let outside = root.appendingPathComponent("outside")
            let watch = try InotifyWatch(paths: [outside.path, outside.appendingPathComponent("Secret.json").path,
                                                 outside.appendingPathComponent("Secret.meta.json").path])

            let offline = FaultProvider(host: "127.0.0.1", httpScheme: .http, port: try closedPort())
            let request = MockedRequest<FaultOK>(offline, escape.endpoint, mock: escape.name?(root), timeout: 2)
            let outcome = await FaultOutcome { () throws(NetworkError) in
                try await makeManager(mocks: mocks).perform(request)
            }
            let opened = watch.events()

            switch (escape.expectation, outcome) {
            case (_, .failure(.invalidRequest(let context))):
                #expect(context.reason?.contains("refused") == true, "\(escape.label): \(String(describing: context.reason))")
            case (.staysInside, .failure(.mockNotFound(let path))):
                #expect(path.hasPrefix(mocks.path + "/"), "\(escape.label) looked for \(path)")
            case (.sidecarOutside, .success):
                break  // the legitimate body, answered; whether the sidecar was read is the watch's to say
            default:
                Issue.record("\(escape.label): expected a refusal, got \(outcome)")
            }
            #expect(opened.isEmpty, "\(escape.label): files outside the mock directory were opened: \(opened)")
        }

        @Test("The watch sees a read outside the mock directory (the check above can fail)")
        func watchSeesAReadOutside() throws {
            let root = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: root) }
            _ = try Self.makeTree(at: root)
            let outside = root.appendingPathComponent("outside")
            let watch = try InotifyWatch(paths: [outside.path])
            _ = try Data(contentsOf: root.appendingPathComponent("mocks/EvilLink.json"))  // through the link
            #expect(watch.events() == ["Secret.json"])
        }

        /// `root/mocks` (returned) and `root/outside`, with links from the first to the second.
        static func makeTree(at root: URL) throws -> URL {
            let files = FileManager.default
            let mocks = root.appendingPathComponent("mocks")
            let outside = root.appendingPathComponent("outside")
            try files.createDirectory(at: mocks.appendingPathComponent("GET"), withIntermediateDirectories: true)
            try files.createDirectory(at: outside, withIntermediateDirectories: true)
            let ok = Data(#"{"ok": true}"#.utf8)
            try ok.write(to: mocks.appendingPathComponent("Legit.json"))
            try ok.write(to: mocks.appendingPathComponent("Sidecar.json"))
            try Data(#"{"ok": true, "secret": "read from outside"}"#.utf8).write(to: outside.appendingPathComponent("Secret.json"))
            try Data(#"{"statusCode": 200, "headers": {"X-Outside": "read"}}"#.utf8)
                .write(to: outside.appendingPathComponent("Secret.meta.json"))
            let secret = outside.appendingPathComponent("Secret.json")
            try files.createSymbolicLink(atPath: mocks.appendingPathComponent("EvilLink.json").path, withDestinationPath: secret.path)
            try files.createSymbolicLink(atPath: mocks.appendingPathComponent("RelativeLink.json").path,
                                         withDestinationPath: "../outside/Secret.json")
            try files.createSymbolicLink(atPath: mocks.appendingPathComponent("OutDir").path, withDestinationPath: outside.path)
            try files.createSymbolicLink(atPath: mocks.appendingPathComponent("Chain.json").path, withDestinationPath: "Chain2.json")
            try files.createSymbolicLink(atPath: mocks.appendingPathComponent("Chain2.json").path, withDestinationPath: secret.path)
            try files.createSymbolicLink(atPath: mocks.appendingPathComponent("Sidecar.meta.json").path,
                                         withDestinationPath: outside.appendingPathComponent("Secret.meta.json").path)
            try files.createSymbolicLink(atPath: mocks.appendingPathComponent("GET/escape").path, withDestinationPath: outside.path)
            return mocks
        }
    }
}
