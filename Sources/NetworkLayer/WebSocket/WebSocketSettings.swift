import Foundation

/// A WebSocket request's own settings, resolved once when it starts.
struct WebSocketSettings: Sendable {
    /// The subprotocols offered, in order.
    let protocols: [String]
    let options: WebSocketOptions

    /// Adds what makes the request a WebSocket handshake (a fresh key each time it is prepared)
    /// after the request's own headers; a header the request set itself (a subprotocol list, an
    /// extension offer) is kept and this one's left out.
    func addHandshakeHeaders(to headers: inout [(name: String, value: String)]) throws(NetworkError) {
        for name in protocols {
            if let problem = WebSocketHandshake.problem(withProtocol: name) { throw .invalidRequest(.init(reason: problem)) }
        }
        for header in WebSocketHandshake.headers(protocols: protocols, compression: options.compression) {
            guard let index = headers.firstIndex(where: { $0.name.caseInsensitiveCompare(header.name) == .orderedSame }) else {
                headers.append(header)
                continue
            }
            // The upgrade itself is the library's: a request's own Upgrade, Connection, key or version is replaced.
            if ["upgrade", "connection", "sec-websocket-key", "sec-websocket-version"].contains(header.name.lowercased()) {
                headers[index] = header
            }
        }
    }
}

extension NetworkManager {
    /// The options of every ``WebSocket`` this manager opens, unless the provider or the request
    /// sets its own. Default: ``WebSocketOptions/init(maximumMessageSize:compression:pingInterval:closeTimeout:maximumFrameSize:)``
    /// (16 MiB messages, `permessage-deflate` offered, a ping every 30 seconds).
    public var webSocketOptions: WebSocketOptions {
        get { settings.withLock { $0.webSocketOptions } }
        set { settings.withLock { $0.webSocketOptions = newValue } }
    }
}

extension ServiceProvider {
    public var webSocketOptions: WebSocketOptions? { nil }
}
