import Foundation
@testable import NetworkLayer

/// permessage-deflate's inflater (what a compressed message from the server goes through): a
/// flags byte (context takeover, a small or large limit), then either any bytes as compressed
/// messages split at points the input chooses, or plain messages compressed by our deflater.
///
/// Checked: nothing traps; no output passes the limit (the refusal is 1009, bad data 1002); what
/// our deflater compresses (with or without context takeover) inflates back to itself.
enum WebSocketInflateFuzz {
    static func check(_ data: Data) throws(FuzzFailure) {
        var bytes = FuzzBytes(data)
        let noContextTakeover = bytes.bool()
        let roundTrip = bytes.bool()
        let limit = bytes.bool() ? 1 << 10 : 1 << 20
        let messages = (0..<1 + bytes.choice(4)).map { _ in bytes.take(bytes.choice(2048)) }
        guard let inflater = try? WebSocketInflater(noContextTakeover: noContextTakeover) else {
            throw FuzzFailure("no inflater")
        }
        if roundTrip {
            guard let deflater = WebSocketDeflater(PerMessageDeflate(serverNoContextTakeover: noContextTakeover,
                                                                     clientNoContextTakeover: noContextTakeover)) else {
                throw FuzzFailure("no deflater")
            }
            for message in messages {
                let compressed = message.withUnsafeBytes { deflater.compress($0) }
                var output = Data()
                do throws(WebSocketProtocolError) {
                    try inflater.inflate(Data(compressed), isFinal: true, into: &output, limit: 1 << 20, ratio: .none, compressedSoFar: 0)
                } catch {
                    throw FuzzFailure("our own compressed message of \(message.count) bytes did not inflate: \(error.reason)")
                }
                try require(output == Data(message), "a message of \(message.count) bytes came back as \(output.count) other bytes")
            }
            return
        }
        for message in messages {
            var output = Data()
            do throws(WebSocketProtocolError) {
                let half = message.count / 2
                try inflater.inflate(Data(message[..<half]), isFinal: false, into: &output, limit: limit, ratio: .standard, compressedSoFar: 0)
                try inflater.inflate(Data(message[half...]), isFinal: true, into: &output, limit: limit, ratio: .standard, compressedSoFar: half)
            } catch {
                try require(error.code == .messageTooBig || error.code == .protocolError, "close code \(error.code) for \(error.reason)")
                return
            }
            try require(output.count <= limit, "\(output.count) bytes inflated past the limit of \(limit)")
        }
    }
}
