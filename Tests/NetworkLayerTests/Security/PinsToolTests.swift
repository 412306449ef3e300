import Foundation
import Testing
import TestScheduling

/// The `networklayer-pins` executable (Sources/NetworkLayerPins), built beside this test binary,
/// run in a process of its own with its output and exit status kept.
struct PinsTool {
    struct Run: CustomStringConvertible {
        let status: Int32
        let output: String
        let errors: String

        /// The pins of the listing, in its order.
        var pins: [String] {
            output.split(separator: "\n").compactMap { line in
                line.hasPrefix("  pin ") ? String(line.split(separator: " ").last ?? "") : nil
            }
        }

        var description: String { "exit \(status)\n\(output)\nstandard error: \(errors)" }
    }

    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("networklayer-pins")
    }

    /// Runs the tool off the cooperative pool; one still running after 60 s is killed.
    static func run(_ arguments: [String]) async throws -> Run {
        try await offCooperativePool {
            let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("pins-\(UUID().uuidString).stderr")
            guard FileManager.default.createFile(atPath: errorFile.path, contents: nil) else {
                throw TestServerError(description: "cannot create \(errorFile.path)")
            }
            defer { try? FileManager.default.removeItem(at: errorFile) }
            let errors = try FileHandle(forWritingTo: errorFile)
            defer { try? errors.close() }
            let process = Process()
            process.executableURL = executable
            process.arguments = arguments
            process.currentDirectoryURL = repositoryRoot  // where the article's relative paths start
            let output = Pipe()
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            let watchdog = DispatchWorkItem { process.terminate() }
            DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: watchdog)
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            watchdog.cancel()
            let message = (try? FileHandle(forReadingFrom: errorFile).readToEnd()) ?? nil
            return Run(status: process.terminationReason == .exit ? process.terminationStatus : -process.terminationStatus,
                       output: String(decoding: data, as: UTF8.self), errors: String(decoding: message ?? Data(), as: UTF8.self))
        }
    }

    static let bundle = "Certificates/TestCABundle.pem"

    /// The tool against the legitimate server (leaf for localhost and the intermediate), trusting the test CAs.
    static func runAgainstLegitServer(_ extra: [String] = []) async throws -> Run {
        try await withLegitServer { server in try await run(["https://localhost:\(server.port)", "--ca", bundle] + extra) }
    }
}

@Suite("networklayer-pins: a server's verified chain with its pins, a suggested rule, a check of pins", .sharing)
struct PinsToolTests {
    static let article = "Sources/NetworkLayer/NetworkLayer.docc/PinsTool.md"

    @Test("It lists the verified chain leaf first, the root from the CA bundle included, with the pins the library compares")
    func listsTheVerifiedChain() async throws {
        let run = try await PinsTool.runAgainstLegitServer()
        #expect(run.status == 0, "\(run)")
        #expect(run.pins == [try pin(of: "localhost.pem"), try pin(of: "TestIntermediateCA.pem"), try pin(of: "TestRootCA.pem")], "\(run)")
        #expect(run.output.contains("presents 3 certificates"), "\(run)")
        #expect(run.output.contains("1 (leaf)") && run.output.contains("2 (intermediate)") && run.output.contains("3 (root)"), "\(run)")
        #expect(run.output.contains("subject   /O=NetworkLayer Tests/CN=localhost"), "\(run)")
        #expect(run.output.contains("issuer    /O=NetworkLayer Tests/CN=Test Intermediate CA"), "\(run)")
        #expect(run.output.contains("notAfter  2123-12-31 ("), "\(run)")
        #expect(run.errors.isEmpty, "\(run)")
    }

    @Test("It suggests a report-only rule for the host with the leaf's pin and the intermediate's as the backup")
    func suggestsARuleWithABackupPin() async throws {
        let run = try await PinsTool.runAgainstLegitServer()
        let suggestion = try #require(run.output.components(separatedBy: "Suggested rule").last.map { String($0) }, "\(run)")
        #expect(suggestion.contains("PinningRule(hosts: [\"localhost\"],"), "\(run)")
        #expect(suggestion.contains("publicKeyHashes: [\"\(try pin(of: "localhost.pem"))\","), "\(run)")
        #expect(suggestion.contains("\"\(try pin(of: "TestIntermediateCA.pem"))\"],"), "\(run)")
        #expect(!suggestion.contains(try pin(of: "TestRootCA.pem")), "\(run)")
        #expect(suggestion.contains("enforcement: .reportOnly") && suggestion.contains("expires: Date(timeIntervalSince1970: "), "\(run)")
        #expect(suggestion.contains("openssl pkey -in backup.key -pubout -outform DER | openssl dgst -sha256 -binary | base64"), "\(run)")
    }

    @Test("--check with the intermediate's pin would pass (exit 0), with a key the server does not have would fail (exit 1)")
    func checksPinsAgainstTheLiveServer() async throws {
        let intermediate = try pin(of: "TestIntermediateCA.pem")
        let pass = try await PinsTool.runAgainstLegitServer(["--check", intermediate])
        #expect(pass.status == 0, "\(pass)")
        #expect(pass.output.contains("would pass: \(intermediate) matches certificate 2 (/O=NetworkLayer Tests/CN=Test Intermediate CA)"), "\(pass)")
        #expect(!pass.output.contains("would fail") && !pass.output.contains("Suggested rule"), "\(pass)")

        let unrelated = try pin(of: "unrelated.pem")
        let fail = try await PinsTool.runAgainstLegitServer(["--check", unrelated, "--check", try pin(of: "selfsigned.pem")])
        #expect(fail.status == 1, "\(fail)")
        #expect(fail.output.contains("would fail: none of the 2 pins matches; the server presents \(try pin(of: "localhost.pem"))"), "\(fail)")
        #expect(!fail.output.contains("would pass"), "\(fail)")
    }

    @Test("--check with hosts that do not cover the server says the rule would not apply (exit 1)")
    func hostsThatDoNotCoverTheServer() async throws {
        let run = try await PinsTool.runAgainstLegitServer(["--hosts", "*.example.com", "--check", try pin(of: "TestIntermediateCA.pem")])
        #expect(run.status == 1, "\(run)")
        #expect(run.output.contains("would not apply: none of the hosts *.example.com covers localhost"), "\(run)")
        let covered = try await PinsTool.runAgainstLegitServer(["--hosts", "**.localhost", "--check", try pin(of: "TestIntermediateCA.pem")])
        #expect(covered.status == 0 && covered.output.contains("would pass"), "\(covered)")
    }

    @Test("--file lists a PEM file's certificates and checks pins against them")
    func listsAFile() async throws {
        let file = certificatesDirectory.appendingPathComponent("localhost-chain.pem").path
        let run = try await PinsTool.run(["--file", file])
        #expect(run.status == 0, "\(run)")
        #expect(run.output.contains("holds 2 certificates"), "\(run)")
        #expect(run.pins == [try pin(of: "localhost.pem"), try pin(of: "TestIntermediateCA.pem")], "\(run)")
        let leaf = try pin(of: "localhost.pem")
        let der = try await PinsTool.run(["--file", certificatesDirectory.appendingPathComponent("Cert001.der").path, "--check", leaf])
        #expect(der.status == 0 && der.pins == [leaf] && der.output.contains("would pass"), "\(der)")
        let fail = try await PinsTool.run(["--file", file, "--check", try pin(of: "unrelated.pem")])
        #expect(fail.status == 1 && fail.output.contains("would fail: the pin matches no certificate; the file holds"), "\(fail)")
    }

    @Test("A chain with only a self-signed leaf gets a suggestion that says a backup key is needed")
    func selfSignedNeedsABackupKey() async throws {
        let run = try await PinsTool.run(["--file", certificatesDirectory.appendingPathComponent("selfsigned.pem").path])
        #expect(run.status == 0, "\(run)")
        #expect(run.output.contains("\"sha256/<the backup key's pin>\"]") && run.output.contains("needs a\nbackup key of your own"), "\(run)")
    }

    @Test("Bad input exits 2 with one line on standard error saying what is wrong", arguments: [
        (["--frobnicate"], "networklayer-pins: unknown option --frobnicate"),
        (["http://localhost:8080/"], "is not an https URL"),
        (["--file", "/nonexistent/cert.pem"], "--file /nonexistent/cert.pem: no such file"),
        (["--file", certificatesDirectory.appendingPathComponent("empty.pem").path], "holds no certificate"),
        (["--file", certificatesDirectory.appendingPathComponent("garbage.der").path], "holds no certificate"),
        (["--file", certificatesDirectory.appendingPathComponent("localhost-chain.pem").path, "--check", "sha256/abc"],
         "\"sha256/abc\" is not a public-key pin"),
        (["https://localhost:8080/", "--check"], "--check needs a value"),
    ])
    func badInput(arguments: [String], message: String) async throws {
        let run = try await PinsTool.run(arguments)
        #expect(run.status == 2, "\(run)")
        #expect(run.errors.contains(message) && run.errors.split(separator: "\n").count == 1, "\(run)")
        #expect(run.output.isEmpty, "\(run)")
    }

    @Test("No arguments: the usage on standard error, exit 2")
    func usage() async throws {
        let run = try await PinsTool.run([])
        #expect(run.status == 2 && run.errors.hasPrefix("usage: networklayer-pins <https-url>") && run.output.isEmpty, "\(run)")
    }

    @Test("A server that cannot be reached, or whose chain fails verification, exits 2 with the library's error")
    func unreachableOrUntrustedServer() async throws {
        let unreachable = try await PinsTool.run(["https://127.0.0.1:\(try closedPort())/", "--ca", PinsTool.bundle])
        #expect(unreachable.status == 2 && unreachable.errors.contains("The server could not be reached"), "\(unreachable)")
        let untrusted = try await withTLSServer("unknownca-chain.pem", key: "unknownca-leaf.key") { server in
            try await PinsTool.run(["https://localhost:\(server.port)", "--ca", PinsTool.bundle])
        }
        #expect(untrusted.status == 2 && untrusted.errors.contains("The server's certificate was not trusted"), "\(untrusted)")
        #expect(untrusted.output.isEmpty, "\(untrusted)")
    }

    @Test("The PinsTool article shows the tool's real output for the test server: its listing, a passing and a failing check")
    func articleShowsTheRealOutput() async throws {
        let article = try String(contentsOf: repositoryRoot.appendingPathComponent(Self.article), encoding: .utf8)
        let listing = try await PinsTool.runAgainstLegitServer()
        let pass = try await PinsTool.runAgainstLegitServer(["--check", try pin(of: "TestIntermediateCA.pem")])
        let fail = try await PinsTool.runAgainstLegitServer(["--check", try pin(of: "unrelated.pem"), "--check", try pin(of: "selfsigned.pem")])
        let file = try await PinsTool.run(["--file", "Certificates/localhost-chain.pem", "--check", try pin(of: "localhost.pem")])
        // Every line but those that change with the day or the port.
        let lines = [listing, pass, fail, file].flatMap { $0.output.split(separator: "\n").map(String.init) }
            .filter { !$0.contains("days left") && !$0.contains("https://localhost:") && !$0.contains("expires") }
        for line in Set(lines) { #expect(article.contains(line), "\(Self.article) lacks the tool's line: \(line)") }
        #expect(article.contains("<doc:CertificatePinning>"))
    }
}
