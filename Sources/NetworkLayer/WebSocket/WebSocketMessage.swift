import Foundation

/// One WebSocket message: text (valid UTF-8, checked on arrival) or binary.
///
/// ```swift
/// try await socket.send(.text("hello"))
/// try await socket.send(.binary(Data([1, 2, 3])))
/// for try await message in socket {
///     switch message {
///     case .text(let text): print(text)
///     case .binary(let data): print(data.count, "bytes")
///     }
/// }
/// ```
public enum WebSocketMessage: Sendable, Hashable {
    /// A text message.
    case text(String)
    /// A binary message.
    case binary(Data)

    /// The payload's size in bytes (a text's UTF-8 length).
    public var byteCount: Int {
        switch self {
        case .text(let text): text.utf8.count
        case .binary(let data): data.count
        }
    }
}
