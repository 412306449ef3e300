import Foundation
@testable import NetworkLayer

/// `Tests/Servers/ocsp_stapling_server.py`: `openssl s_server` on 127.0.0.1 presenting
/// `Certificates/localhost.pem` with its intermediate, and stapling an OCSP response for it made
/// at start by `openssl ocsp` (good or revoked), or none.
final class OCSPServer: StoppableServer {
    /// What the server staples.
    enum Stapling: String, Sendable, CaseIterable {
        case good, revoked, none
    }

    let stapling: Stapling
    /// The file the server writes what clients send to, when started recording (it then answers nothing).
    let recordFile: URL?
    private let server: ServerProcess
    var port: Int { server.port }

    static func start(_ stapling: Stapling, record: Bool = false) throws -> OCSPServer {
        var arguments = ["-S", testsDirectory.appendingPathComponent("Servers/ocsp_stapling_server.py").path,
                         "--certificates", certificatesDirectory.path, "--stapling", stapling.rawValue]
        var recordFile: URL?
        if record {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("ocsp-record-\(UUID().uuidString).bin")
            _ = FileManager.default.createFile(atPath: file.path, contents: nil)
            arguments += ["--record", file.path]
            recordFile = file
        }
        do {
            let server = try ServerProcess(python: arguments, name: "ocsp_stapling_server.py")
            return OCSPServer(stapling: stapling, recordFile: recordFile, server: server)
        } catch {
            if let recordFile { try? FileManager.default.removeItem(at: recordFile) }
            throw error
        }
    }

    private init(stapling: Stapling, recordFile: URL?, server: ServerProcess) {
        self.stapling = stapling
        self.recordFile = recordFile
        self.server = server
    }

    func stop() {
        server.stop()
        if let recordFile { try? FileManager.default.removeItem(at: recordFile) }
    }

    /// Everything clients sent so far (requires recording).
    func recordedBytes() -> Data {
        guard let recordFile, let handle = try? FileHandle(forReadingFrom: recordFile) else { return Data() }
        defer { try? handle.close() }
        return (try? handle.readToEnd()) ?? Data()
    }

    /// A provider for this server trusting the test CA, with `requiresOCSPStapling` as given.
    func provider(requiresOCSPStapling: Bool) -> TLSProvider {
        TLSProvider(port: port, tls: TLSOptions(trustedCertificates: testCABundle, requiresOCSPStapling: requiresOCSPStapling))
    }
}

/// What `GET /stapling.json` answers: what the server staples.
struct StaplingAnswer: Decodable, Sendable {
    let stapling: String
}

/// Runs `body` with a fresh ``OCSPServer`` stapling `stapling`, stopped afterwards whatever happens.
func withOCSPStaplingServer<T>(_ stapling: OCSPServer.Stapling, record: Bool = false,
                               _ body: (OCSPServer) async throws -> T) async throws -> T {
    try await withServer({ try OCSPServer.start(stapling, record: record) }, body)
}
