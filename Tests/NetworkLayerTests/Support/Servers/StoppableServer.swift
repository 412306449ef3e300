/// A server or proxy a test starts and must stop, whatever happens.
protocol StoppableServer: Sendable {
    /// Stops the program and waits for it to exit. Blocks: ``running(_:_:)`` calls it off the
    /// cooperative pool.
    func stop()
}

/// Starts a server with `start`, runs `body` with it, and stops it afterwards, whatever happens.
///
/// Starting waits for the program to listen and stopping for it to exit, so both run on a
/// Dispatch thread: on the cooperative pool (one thread per core) a few tests doing that at once
/// would stall every other task, and timing tests would measure the stall.
func withServer<Server: StoppableServer, T>(_ start: @escaping @Sendable () throws -> Server,
                                            _ body: (Server) async throws -> T) async throws -> T {
    try await running(try await offCooperativePool(start), body)
}

/// Runs `body` with a server already started, then stops it (off the cooperative pool), whatever happens.
func running<Server: StoppableServer, T>(_ server: Server, _ body: (Server) async throws -> T) async throws -> T {
    do {
        let value = try await body(server)
        await offCooperativePool { server.stop() }
        return value
    } catch {
        await offCooperativePool { server.stop() }
        throw error
    }
}
