import Foundation

/// A mocked WebSocket: two bounded queues between the client and a peer closure (a mock
/// registered in code, or a `.ws` script), and the close handshake between them. No socket.
final class MockWebSocketChannel: WebSocketChannel {
    private let toClient = WebSocketInbox()
    private let toPeer = WebSocketInbox()
    private let registry = Protected<MockRegistry?>(nil)
    private let url: URL
    private let description: String
    private let status = Protected<(code: WebSocketCloseCode, reason: String)?>(nil)
    private let peer: @Sendable (WebSocketPeer) async throws -> Void
    private let handshake: RecordedRequest
    private let log: WebSocketLog?

    private init(request: PreparedRequest, peer: @escaping @Sendable (WebSocketPeer) async throws -> Void) {
        url = request.url
        description = request.redactedDescription
        handshake = RecordedRequest(request)
        self.peer = peer
        log = request.resolved.log.map { WebSocketLog($0, request: request) }
    }

    /// The handshake's 101 for `request`, its socket's peer `peer` (not yet running: ``start``).
    static func upgrade(for request: PreparedRequest, peer: @escaping @Sendable (WebSocketPeer) async throws -> Void) -> HTTPResponse {
        let channel = MockWebSocketChannel(request: request, peer: peer)
        let protocols = request.headers.value(for: "Sec-WebSocket-Protocol")?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } ?? []
        var fields: [(name: String, value: String)] = [("Upgrade", "websocket"), ("Connection", "Upgrade")]
        if let key = request.headers.value(for: "Sec-WebSocket-Key") { fields.append(("Sec-WebSocket-Accept", WebSocketHandshake.accept(for: key))) }
        if let chosen = protocols.first { fields.append(("Sec-WebSocket-Protocol", chosen)) }
        var upgraded = HTTPResponse(statusCode: 101, headers: ResponseHeaders(fields: fields), body: Data(), isMocked: true,
                                    origin: request.origin, expectations: request.resolved.expectations)
        upgraded.webSocket = WebSocketUpgrade(channel: channel, subprotocol: protocols.first, isCompressed: false, log: channel.log)
        return upgraded
    }

    /// The handshake's answer from what the mocks answered: a code mock's socket, started; a
    /// 2xx mock file read as a script (``WebSocketScript``); any other status as it is, for the
    /// data path to fail as a live refusal would.
    static func answer(_ response: HTTPResponse, to request: PreparedRequest, registry: MockRegistry) throws(NetworkError) -> HTTPResponse {
        if let channel = response.webSocket?.channel as? MockWebSocketChannel {
            channel.start(recordingIn: registry)
            return response
        }
        guard (200..<300).contains(response.statusCode) else { return response }
        let name = (request.resolved.mockedResponseFilename ?? MockStore.methodPathName(for: request)) + ".ws"
        let script = try WebSocketScript(parsing: response.body, name: name, request: request.redactedDescription)
        let upgraded = upgrade(for: request) { try await script.run(with: $0) }
        (upgraded.webSocket?.channel as? MockWebSocketChannel)?.start(recordingIn: registry)
        return upgraded
    }

    /// Runs the peer, recording the messages in `registry`.
    private func start(recordingIn registry: MockRegistry) {
        self.registry.withLock { $0 = registry }
        let handle = WebSocketPeer(request: handshake, channel: self)
        let peer = self.peer
        Task.detached { await self.runPeer(peer, handle) }
    }

    private func runPeer(_ peer: @Sendable (WebSocketPeer) async throws -> Void, _ handle: WebSocketPeer) async {
        do {
            try await peer(handle)
            peerClose(.normalClosure, reason: "")
        } catch let error as NetworkError where isClosed {
            _ = error  // the client closed: the peer's send failing is how it learns
        } catch {
            let failure: NetworkError = (error as? NetworkError)
                ?? .transport(.init(request: description, reason: "the mock WebSocket's peer threw \(error)", underlyingError: error))
            end(.internalServerError, reason: "", by: .server, client: .failed(failure))
        }
    }

    private var isClosed: Bool { status.withLock { $0 != nil } }

    /// Ends the socket both ways, closed by `side` (`cause` says why the client closed, when no
    /// call to `close` did): the first end counts.
    private func end(_ code: WebSocketCloseCode, reason: String, by side: WebSocketClosing.Side, because cause: String? = nil,
                     client: WebSocketInbox.End) {
        let first = status.withLock { status -> Bool in
            guard status == nil else { return false }
            status = (code, reason)
            return true
        }
        guard first else { return }
        log?.ended(client, closing: WebSocketClosing(side: side, code: code, reason: reason, cause: cause), status: (code, reason))
        toClient.finish(client)
        toPeer.finish(.closed)
    }

    // MARK: The client's side

    nonisolated(nonsending) func send(_ message: WebSocketMessage) async throws(NetworkError) {
        if let closed = status.withLock({ $0 }) {
            var context = NetworkError.Context(request: description, reason: "the WebSocket is closed (\(closed.code)): a message cannot be sent after close")
            context.refusedSocketCall = .send
            throw .invalidRequest(context)
        }
        await toPeer.waitForRoom()
        registry.withLock { $0 }?.recordWebSocket(.sent(message, to: url))
        toPeer.push(message)
    }

    nonisolated(nonsending) func receive() async throws(NetworkError) -> WebSocketMessage? {
        let message = try await toClient.next(onCancel: { [weak self] in self?.closeSoon(.goingAway, reason: "", because: "the task reading it was cancelled") },
                                              cancelled: { [description] in .cancelled(.init(request: description, reason: "the task reading the WebSocket was cancelled")) })
        if let message { registry.withLock { $0 }?.recordWebSocket(.received(message, from: url)) }
        return message
    }

    nonisolated(nonsending) func close(_ code: WebSocketCloseCode, reason: String) async {
        end(code, reason: reason, by: .client, client: .closed)
    }

    func closeSoon(_ code: WebSocketCloseCode, reason: String, because cause: String) {
        end(code, reason: reason, by: .client, because: cause, client: .closed)
    }

    var closeStatus: (code: WebSocketCloseCode, reason: String)? { status.withLock { $0 } }

    // MARK: The peer's side

    func peerSend(_ message: WebSocketMessage) async throws(NetworkError) {
        if let closed = status.withLock({ $0 }) {
            throw .invalidRequest(.init(request: description, reason: "the mock WebSocket is closed (\(closed.code)): the peer cannot send"))
        }
        await toClient.waitForRoom()
        log?.message(message, outgoing: false)
        toClient.push(message)
    }

    func peerReceive() async throws(NetworkError) -> WebSocketMessage? {
        try await toPeer.next(onCancel: {}, cancelled: { [description] in .cancelled(.init(request: description, reason: "the mock peer was cancelled")) })
    }

    func peerClose(_ code: WebSocketCloseCode, reason: String) {
        end(code, reason: reason, by: .server, client: .closed)
    }

    /// Fails the client's side (a script's expectation not met).
    func peerFail(_ error: NetworkError, code: WebSocketCloseCode) {
        end(code, reason: "", by: .server, client: .failed(error))
    }
}
