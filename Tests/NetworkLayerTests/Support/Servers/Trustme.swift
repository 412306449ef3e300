import Foundation

/// A certificate authority and a server certificate for `names`, made by `trustme` (in the
/// `.venv` that `make deps` creates) into a fresh temporary directory: for a server that must
/// present a name no file in `Certificates/` has.
struct TrustmeCertificates {
    let directory: URL
    /// The CA, to trust (``NetworkManager/customCABundle``).
    var authority: URL { directory.appendingPathComponent("ca.pem") }
    /// The server's chain and key.
    var chain: URL { directory.appendingPathComponent("chain.pem") }
    var key: URL { directory.appendingPathComponent("key.pem") }

    init(names: [String]) async throws {
        directory = try temporaryDirectory()
        let script = """
            import sys, trustme
            ca = trustme.CA()
            cert = ca.issue_cert(*sys.argv[2:])
            ca.cert_pem.write_to_path(sys.argv[1] + "/ca.pem")
            cert.private_key_pem.write_to_path(sys.argv[1] + "/key.pem")
            cert.private_key_and_cert_chain_pem.write_to_path(sys.argv[1] + "/full.pem")
            with open(sys.argv[1] + "/chain.pem", "wb") as chain:
                for blob in cert.cert_chain_pems:
                    chain.write(blob.bytes())
            """
        let quoted = ([HTTPBinServer.python.path, "-c", script, directory.path] + names).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let (status, _) = try await runShell(quoted.joined(separator: " "))
        guard status == 0 else { throw TestServerError(description: "trustme could not make a certificate for \(names) (run `make deps`)") }
    }
}
