import Foundation
@testable import NetworkLayer

/// The WebSocket frame decoder and message reader (what a live socket runs on the server's
/// bytes): a flags byte (compression negotiated, the message limit), then any bytes as what the
/// server sent, cut into pieces at points the input chooses.
///
/// Checked: nothing traps; the events and the error are the same whole, a byte at a time and in
/// the chosen pieces; an error's close code is one the RFC names for it (1002, 1007, 1009); no
/// message is over the limit; every text message is valid UTF-8 as received.
enum WebSocketFramesFuzz {
    static func check(_ data: Data) throws(FuzzFailure) {
        var bytes = FuzzBytes(data)
        let compression = bytes.bool()
        let limit = 125 + bytes.choice(1 << 16)
        var cuts = (0..<bytes.choice(8)).map { _ in bytes.choice(4096) }
        let input = bytes.rest()
        cuts.sort()
        let whole = run(input, pieces: [input.count], compression: compression, limit: limit)
        let single = run(input, pieces: Array(repeating: 1, count: input.count), compression: compression, limit: limit)
        var sizes: [Int] = []
        var last = 0
        for cut in cuts where cut > last && cut < input.count { sizes.append(cut - last); last = cut }
        sizes.append(input.count - last)
        let chosen = run(input, pieces: sizes, compression: compression, limit: limit)
        try require(whole == single && whole == chosen, "the events differ by how the bytes are cut: \(whole) / \(single) / \(chosen)")
        if let error = whole.error {
            try require([1002, 1007, 1009].contains(error.code.rawValue), "close code \(error.code) for \(error.reason)")
        }
        for event in whole.events {
            guard case .message(let message) = event else { continue }
            try require(message.byteCount <= limit, "a message of \(message.byteCount) bytes passed the limit of \(limit)")
        }
    }

    struct Outcome: Equatable {
        var events: [WebSocketMessageReader.Event] = []
        var error: WebSocketProtocolError?
    }

    static func run(_ input: [UInt8], pieces: [Int], compression: Bool, limit: Int) -> Outcome {
        var decoder = WebSocketFrameDecoder(maximumPayload: limit, allowsCompression: compression)
        var reader = WebSocketMessageReader(maximumMessageSize: limit, decompressionLimit: .standard,
                                            inflater: compression ? try? WebSocketInflater(noContextTakeover: false) : nil)
        var outcome = Outcome()
        var offset = 0
        do throws(WebSocketProtocolError) {
            for size in pieces where offset < input.count {
                let end = min(input.count, offset + size)
                decoder.append(Array(input[offset..<end]))
                offset = end
                while let frame = try decoder.next() {
                    if let event = try reader.receive(frame) { outcome.events.append(event) }
                }
            }
        } catch {
            outcome.error = error
        }
        return outcome
    }
}
