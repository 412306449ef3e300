/// Why a WebSocket closed: the status code of its close frame (RFC 6455 §7.4).
///
/// The codes of the RFC are constants; an application's own (3000–4999) are made from their
/// number, `WebSocketCloseCode(rawValue: 4001)`.
public struct WebSocketCloseCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The code as sent in the close frame.
    public let rawValue: UInt16

    /// A code from its number.
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// 1000: the purpose of the connection was fulfilled.
    public static let normalClosure = WebSocketCloseCode(rawValue: 1000)
    /// 1001: an endpoint goes away (a server going down, a client's task cancelled).
    public static let goingAway = WebSocketCloseCode(rawValue: 1001)
    /// 1002: a protocol error.
    public static let protocolError = WebSocketCloseCode(rawValue: 1002)
    /// 1003: a kind of data the endpoint cannot accept.
    public static let unsupportedData = WebSocketCloseCode(rawValue: 1003)
    /// 1005: the close frame had no code (never sent on the wire).
    public static let noStatusReceived = WebSocketCloseCode(rawValue: 1005)
    /// 1006: the connection ended without a close frame (never sent on the wire).
    public static let abnormalClosure = WebSocketCloseCode(rawValue: 1006)
    /// 1007: a message's data was not consistent with its type (text that is not UTF-8).
    public static let invalidFramePayloadData = WebSocketCloseCode(rawValue: 1007)
    /// 1008: a message violated the endpoint's policy.
    public static let policyViolation = WebSocketCloseCode(rawValue: 1008)
    /// 1009: a message was too big to process.
    public static let messageTooBig = WebSocketCloseCode(rawValue: 1009)
    /// 1010: the client expected an extension the server did not negotiate.
    public static let mandatoryExtensionMissing = WebSocketCloseCode(rawValue: 1010)
    /// 1011: the server met an unexpected condition.
    public static let internalServerError = WebSocketCloseCode(rawValue: 1011)

    /// Whether the code may appear in a close frame: 1000–1003, 1007–1014 and 3000–4999.
    /// 1004, 1005, 1006 and 1015 are reserved and never sent; below 1000, 1016–2999 and from
    /// 5000 are not codes.
    public var isSendable: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }

    public var description: String {
        switch rawValue {
        case 1000: "1000 (normal closure)"
        case 1001: "1001 (going away)"
        case 1002: "1002 (protocol error)"
        case 1003: "1003 (unsupported data)"
        case 1005: "1005 (no status received)"
        case 1006: "1006 (abnormal closure)"
        case 1007: "1007 (invalid payload data)"
        case 1008: "1008 (policy violation)"
        case 1009: "1009 (message too big)"
        case 1010: "1010 (mandatory extension missing)"
        case 1011: "1011 (internal server error)"
        default: "\(rawValue)"
        }
    }
}
