import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// The backend boundary (the Architecture article), checked in the sources until the backend is a
/// target of its own and the compiler checks it: the backend (`Curl/`, and `WebSocket/`'s wire
/// code) is told a hop as a ``TransferPlan`` and never reads the request, its settings or the
/// manager behind it; the chain and the rest of the core never name the plan or the code that
/// renders and applies it, only what `PreparedRequest+Plan.swift` answers for a prepared request.
@Suite("The backend boundary holds in the sources", .sharing)
struct BackendBoundaryTests {
    static let sources = repositoryRoot.appendingPathComponent("Sources/NetworkLayer", isDirectory: true)

    /// Files of `WebSocket/` that are the core's, each for the reason given: the rest is wire code.
    static let coreFilesInWebSocket: [String: String] = [
        "MockWebSocketChannel.swift": "a mock, which answers from the mock registry",
        "RecordingWebSocketChannel.swift": "record mode, which writes mock files",
        "WebSocketPeer.swift": "the mock peer's public API",
        "WebSocketScript.swift": "a mock's script",
        "WebSocketLog.swift": "the log, which the core makes and hands the backend in the plan",
        "WebSocketSettings.swift": "the manager's and provider's settings",
    ]

    /// What the backend must not read: the request and its settings before the plan, the manager,
    /// the provider, the chain, the mocks and the log's writer.
    static let coreNames = ["PreparedRequest", "ResolvedRequest", "BaseRequest", "NetworkManager", "ServiceProvider",
                            "CallChain", "CallStep", "MockRegistry", "MockStore", "NetworkLog"]
    /// What the chain and the rest of the core must not reach: the plan, how it is applied and rendered.
    static let backendNames = ["TransferPlan", "CurlCommand", "CurlTransfer", "CurlEasyHandle"]
    /// Core folders that talk to the backend only through `Transport` and `PreparedRequest+Plan.swift`.
    static let chainFolders = ["Chain", "Caching", "Middleware", "Mocking", "Manager", "Requests", "Providers", "Streaming"]

    /// The type names of `names` that `source` uses in code (comments and string literals left out).
    static func uses(of names: [String], in source: String) -> [String] {
        var code = ""
        var inBlockComment = false
        for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
            var text = Substring(line)
            if inBlockComment {
                guard let end = text.range(of: "*/") else { continue }
                text = text[end.upperBound...]
                inBlockComment = false
            }
            if let start = text.range(of: "/*"), text.range(of: "*/", range: start.upperBound..<text.endIndex) == nil {
                text = text[..<start.lowerBound]
                inBlockComment = true
            }
            // Strings out first (a URL's `//` is no comment), then the line's comment.
            let withoutStrings = text.replacing(/"(?:[^"\\]|\\.)*"/, with: "\"\"")
            code += (withoutStrings.firstRange(of: "//").map { withoutStrings[..<$0.lowerBound] } ?? withoutStrings[...]) + "\n"
        }
        return names.filter { name in code.contains(try! Regex("\\b\(name)\\b")) }
    }

    static func swiftFiles(in folder: String) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: sources.appendingPathComponent(folder, isDirectory: true),
                                                    includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "swift" }
    }

    @Test("The check finds a name in code, and not in a comment or a string")
    func detectorWorks() {
        #expect(Self.uses(of: ["PreparedRequest"], in: "let request: PreparedRequest") == ["PreparedRequest"])
        #expect(Self.uses(of: ["PreparedRequest"], in: "/// a ``PreparedRequest``\nlet x = 1 // PreparedRequest").isEmpty)
        #expect(Self.uses(of: ["PreparedRequest"], in: "let s = \"PreparedRequest\"").isEmpty)
        #expect(Self.uses(of: ["PreparedRequest"], in: "/* PreparedRequest\n PreparedRequest */ let x = 1").isEmpty)
        #expect(Self.uses(of: ["PreparedRequest"], in: "let url = \"http://a\"; let r: PreparedRequest") == ["PreparedRequest"])
        #expect(Self.uses(of: ["Plan"], in: "let p: TransferPlan").isEmpty, "a name inside another matched")
    }

    @Test("The backend reads the plan, never the request, its settings, the manager or the mocks")
    func backendReadsOnlyThePlan() throws {
        let files = try Self.swiftFiles(in: "Curl")
            + Self.swiftFiles(in: "WebSocket").filter { Self.coreFilesInWebSocket[$0.lastPathComponent] == nil }
        #expect(files.count >= 40, "found \(files.count) backend files: the check would check little")
        for file in files {
            let used = Self.uses(of: Self.coreNames, in: try String(contentsOf: file, encoding: .utf8))
            #expect(used.isEmpty, "\(file.lastPathComponent) is backend code and uses \(used): give it what it needs in TransferPlan")
        }
        let webSocketFiles = Set(try Self.swiftFiles(in: "WebSocket").map(\.lastPathComponent))
        for name in Self.coreFilesInWebSocket.keys {
            #expect(webSocketFiles.contains(name), "\(name) is listed as the core's but WebSocket/ has no such file")
        }
    }

    @Test("The chain and the core reach the backend through Transport and the prepared request, never the plan")
    func chainNeverNamesThePlan() throws {
        var checked = 0
        for folder in Self.chainFolders {
            for file in try Self.swiftFiles(in: folder) {
                checked += 1
                let used = Self.uses(of: Self.backendNames, in: try String(contentsOf: file, encoding: .utf8))
                #expect(used.isEmpty, "\(folder)/\(file.lastPathComponent) uses \(used): ask the PreparedRequest (PreparedRequest+Plan.swift)")
            }
        }
        #expect(checked >= 80, "checked \(checked) files: the check would check little")
    }
}
