import Foundation
@testable import NetworkLayer

/// The pin of a file in `directory` (by default `Certificates/`), as the script that generated it
/// (`Certificates/generate.sh`) wrote it to that directory's `pins.txt`.
func pin(of file: String, in directory: URL = certificatesDirectory) throws -> String {
    let lines = try String(contentsOf: directory.appendingPathComponent("pins.txt"), encoding: .utf8)
    guard let line = lines.split(separator: "\n").first(where: { $0.hasPrefix(file + " ") }) else {
        throw TestServerError(description: "no pin for \(file) in \(directory.path)/pins.txt")
    }
    return String(line.split(separator: " ")[1])
}

/// A TLS server presenting `chain` for localhost and 127.0.0.1, recording what it receives.
func withTLSServer<T>(_ chain: String, key: String, extra: [String] = [],
                      _ body: (TestServer) async throws -> T) async throws -> T {
    try await withTestServer(["--tls-cert", certificatesDirectory.appendingPathComponent(chain).path,
                              "--tls-key", certificatesDirectory.appendingPathComponent(key).path] + extra,
                             record: true, tls: true, body)
}

/// The legitimate server: leaf for localhost signed by the intermediate, sent with the intermediate.
func withLegitServer<T>(_ body: (TestServer) async throws -> T) async throws -> T {
    try await withTLSServer("localhost-chain.pem", key: "localhost.key", body)
}

/// A man in the middle: another leaf for the same names, signed by the same trusted root.
func withInterceptor<T>(_ body: (TestServer) async throws -> T) async throws -> T {
    try await withTLSServer("interceptor-chain.pem", key: "interceptor.key", body)
}
