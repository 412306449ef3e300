import Foundation

/// A raw TCP server on 127.0.0.1 (Python, not HTTP): it reads the first 64 KiB a client sends,
/// then resets the connection while the client is still sending. With `tls`, it first completes
/// a TLS handshake as `localhost` (Certificates/localhost-chain.pem, trusted through
/// TestCABundle.pem) and counts decrypted bytes. It exits when its stdin closes.
final class ResettingServer: Sendable {
    private let server: ServerProcess
    var port: Int { server.port }

    private static let script = """
        import os, socket, ssl, struct, sys, threading
        def watch_stdin():
            while os.read(0, 65536):
                pass
            os._exit(0)
        threading.Thread(target=watch_stdin, daemon=True).start()
        context = None
        if len(sys.argv) > 2:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(sys.argv[1], sys.argv[2])
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen(16)
        print("PORT", server.getsockname()[1], flush=True)
        while True:
            connection, _ = server.accept()
            try:
                if context:
                    connection = context.wrap_socket(connection, server_side=True)
                received = 0
                while received < 65536:
                    chunk = connection.recv(65536)
                    if not chunk:
                        break
                    received += len(chunk)
            except (OSError, ssl.SSLError):
                pass
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            connection.close()
        """

    init(tls: Bool = false) throws {
        let tlsArguments = tls ? [certificatesDirectory.appendingPathComponent("localhost-chain.pem").path,
                                  certificatesDirectory.appendingPathComponent("localhost.key").path] : []
        server = try ServerProcess(python: ["-c", Self.script] + tlsArguments, name: "the resetting server")
    }

    func stop() { server.stop() }
}
