import Foundation
import Testing
import TestScheduling

/// What the README and the articles must say where a reader looks for it: the private CA beside
/// the client certificate, which mock answers two providers that register one path.
@Suite("The documentation says it where it is looked for", .sharing)
struct DocumentationTests {
    static func text(_ path: String) throws -> String {
        try String(contentsOf: repositoryRoot.appendingPathComponent(path), encoding: .utf8)
    }

    /// The ```swift blocks of a Markdown text.
    static func swiftBlocks(_ text: String) -> [String] {
        text.components(separatedBy: "```swift\n").dropFirst().compactMap { $0.components(separatedBy: "\n```").first }
    }

    /// The sections of a Markdown text, split at its headings.
    static func sections(_ text: String) -> [String] {
        text.components(separatedBy: "\n#").map { "#" + $0 }
    }

    @Test("A client certificate is shown with the private CA's customCABundle: in a README block and in the server-side article's section")
    func privateCABesideClientCertificates() throws {
        let readme = try Self.text("README.md")
        #expect(Self.swiftBlocks(readme).contains { $0.contains("clientCertificate") && $0.contains("customCABundle") },
                "no README block sets a client certificate and the CA bundle together")
        let serverSide = try Self.text("Sources/NetworkLayer/NetworkLayer.docc/ServerSide.md")
        #expect(Self.sections(serverSide).contains { $0.contains("clientCertificate") && $0.contains("customCABundle") },
                "ServerSide.md's client certificate section does not name customCABundle")
    }

    @Test("The README stays within 400 lines: the rest is in the articles it links")
    func readmeLength() throws {
        let lines = try Self.text("README.md").split(separator: "\n", omittingEmptySubsequences: false).count
        #expect(lines <= 401, "README.md has \(lines - 1) lines; move detail into the DocC articles")
    }

    @Test("The mock article says which mock answers when two providers register the same method and path")
    func twoProvidersOnePath() throws {
        let article = try Self.text("Sources/NetworkLayer/NetworkLayer.docc/MockModeAndTesting.md")
        let section = try #require(article.components(separatedBy: "\n- ").first { $0.hasPrefix("**Two providers, one path.**") })
        #expect(section.contains("the later answers both"), "\(section)")
        #expect(section.contains("request.url.host") && section.contains("base path"), "\(section)")
    }
}
