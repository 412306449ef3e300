import Foundation

/// Turns the server's frames into messages and control events (RFC 6455 §5.4–5.5, RFC 7692):
/// fragments joined, compressed messages inflated, text checked as UTF-8 fragment by fragment,
/// the message limit enforced while a message grows, close frames checked.
struct WebSocketMessageReader {
    enum Event: Equatable {
        case message(WebSocketMessage)
        case ping(Data)
        case pong(Data)
        /// The server's close frame: its code (``WebSocketCloseCode/noStatusReceived`` when it
        /// had none) and reason.
        case close(WebSocketCloseCode, String)
    }

    let maximumMessageSize: Int
    let decompressionLimit: DecompressionLimit
    /// The negotiated compression's inflater, `nil` without permessage-deflate.
    let inflater: WebSocketInflater?

    /// The message being assembled from fragments.
    private struct Partial {
        var isText: Bool
        var isCompressed: Bool
        var payload = Data()
        var compressedSize = 0
        var validator = UTF8Validator()
    }
    private var partial: Partial?

    init(maximumMessageSize: Int, decompressionLimit: DecompressionLimit = .none, inflater: WebSocketInflater? = nil) {
        self.maximumMessageSize = maximumMessageSize
        self.decompressionLimit = decompressionLimit
        self.inflater = inflater
    }

    /// What `frame` completes, if anything.
    /// - Throws: the violation and its close code.
    mutating func receive(_ frame: WebSocketFrame) throws(WebSocketProtocolError) -> Event? {
        switch frame.opcode {
        case .ping: return .ping(frame.payload)
        case .pong: return .pong(frame.payload)
        case .close: return try Self.close(frame.payload)
        case .text, .binary:
            guard partial == nil else {
                throw WebSocketProtocolError(.protocolError, "the server started a new message before finishing a fragmented one")
            }
            if frame.compressed, inflater == nil {
                throw WebSocketProtocolError(.protocolError, "the server compressed a message without permessage-deflate")
            }
            partial = Partial(isText: frame.opcode == .text, isCompressed: frame.compressed)
        case .continuation:
            guard partial != nil else {
                throw WebSocketProtocolError(.protocolError, "the server sent a continuation frame with no message to continue")
            }
            if frame.compressed {
                throw WebSocketProtocolError(.protocolError, "the server set RSV1 on a continuation frame")
            }
        }
        try append(frame)
        guard frame.fin, let message = partial else { return nil }
        partial = nil
        if message.isText {
            guard message.validator.isComplete else {
                throw WebSocketProtocolError(.invalidFramePayloadData, "the server's text message ends inside a UTF-8 sequence")
            }
            return .message(.text(String(decoding: message.payload, as: UTF8.self)))
        }
        return .message(.binary(message.payload))
    }

    /// Adds a data frame's payload to the message, inflated, counted and validated.
    private mutating func append(_ frame: WebSocketFrame) throws(WebSocketProtocolError) {
        guard var message = partial else { return }
        partial = nil  // no second reference while the payload grows: appending must not copy it
        let before = message.payload.count
        if message.isCompressed, let inflater {
            try inflater.inflate(frame.payload, isFinal: frame.fin, into: &message.payload, limit: maximumMessageSize,
                                 ratio: decompressionLimit, compressedSoFar: message.compressedSize)
            message.compressedSize += frame.payload.count
        } else {
            guard message.payload.count + frame.payload.count <= maximumMessageSize else {
                throw WebSocketProtocolError(.messageTooBig, "the server's message grew past the limit of \(maximumMessageSize) bytes")
            }
            if message.payload.isEmpty { message.payload = frame.payload } else { message.payload.append(frame.payload) }
        }
        if message.isText {
            let valid = message.payload.withUnsafeBytes { message.validator.validate(UnsafeRawBufferPointer(rebasing: $0[before...])) }
            guard valid else {
                throw WebSocketProtocolError(.invalidFramePayloadData, "the server sent a text message that is not valid UTF-8")
            }
        }
        partial = message
    }

    /// The close frame's code and reason, checked (§5.5.1, §7.4).
    static func close(_ payload: Data) throws(WebSocketProtocolError) -> Event {
        guard !payload.isEmpty else { return .close(.noStatusReceived, "") }
        guard payload.count >= 2 else {
            throw WebSocketProtocolError(.protocolError, "the server's close frame holds 1 byte (a code takes 2)")
        }
        let code = WebSocketCloseCode(rawValue: UInt16(payload[payload.startIndex]) << 8 | UInt16(payload[payload.startIndex + 1]))
        guard code.isSendable else {
            throw WebSocketProtocolError(.protocolError, "the server closed with the code \(code.rawValue), which may not be sent")
        }
        let reason = payload.dropFirst(2)
        var validator = UTF8Validator()
        guard validator.validate(reason), validator.isComplete else {
            throw WebSocketProtocolError(.invalidFramePayloadData, "the server's close reason is not valid UTF-8")
        }
        return .close(code, String(decoding: reason, as: UTF8.self))
    }
}
