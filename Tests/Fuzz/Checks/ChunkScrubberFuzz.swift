import Foundation
@testable import NetworkLayer

/// A recorded stream's body scrubbed in the pieces it arrives in (``ChunkScrubber``): a body of
/// words, any bytes and secrets (whole, or spelled with percent-escapes up to the depth the
/// redactor decodes), cut into pieces of any sizes, empty ones included.
///
/// Checked: nothing traps; what comes out, pieces joined, holds no secret in any spelling the
/// redactor looks for; a body without one comes out byte for byte; and the bytes held back never
/// exceed ``Redactor/longestSpelling(of:)`` beyond the piece being scrubbed (memory stays bounded).
enum ChunkScrubberFuzz {
    private static let words: [[UInt8]] = ["data: ", "\n", "\r\n", "%", "%2", "%25", "<redacted>", "é", "Bearer "].map { Array($0.utf8) }

    static func check(_ data: Data) throws(FuzzFailure) {
        var bytes = FuzzBytes(data)
        // Letters and digits after a prefix no word holds: a secret found came from the input.
        let secrets = (0..<(1 + bytes.choice(3))).map { index in
            "nlC\(index)" + String((0..<(1 + bytes.choice(10))).map { _ in Character(Unicode.Scalar(UInt8(ascii: "a") + UInt8(bytes.choice(26)))) })
        }
        var body: [UInt8] = []
        for _ in 0..<bytes.choice(12) {
            switch bytes.choice(3) {
            case 0: body += words[bytes.choice(words.count)]
            case 1: body += spelled(secrets[bytes.choice(secrets.count)], &bytes)
            default: body += bytes.take(bytes.choice(16))
            }
        }
        var scrubber = ChunkScrubber(secrets: secrets)
        var output: [UInt8] = []
        var start = 0
        while start < body.count {
            var size = bytes.choice(24)
            if size == 0 {   // an empty piece, then at least one byte: spent input answers 0 forever
                output += scrubber.scrub([UInt8]())
                size = 1
            }
            let end = min(body.count, start + size)
            output += scrubber.scrub(body[start..<end])
            start = end
        }
        output += scrubber.finish()

        try require(!holdsSecret(output, secrets), "a secret came out: \(String(decoding: output, as: UTF8.self).debugDescription) "
                    + "from \(String(decoding: body, as: UTF8.self).debugDescription)")
        if !holdsSecret(body, secrets) {
            try require(output == body, "a body without a secret changed: \(String(decoding: body, as: UTF8.self).debugDescription) "
                        + "came out as \(String(decoding: output, as: UTF8.self).debugDescription)")
        }
    }

    /// `secret`, or with some of its bytes percent-escaped, up to ``Redactor/percentDecodingDepth`` times.
    private static func spelled(_ secret: String, _ bytes: inout FuzzBytes) -> [UInt8] {
        var text = Array(secret.utf8)
        for _ in 0..<bytes.choice(Redactor.percentDecodingDepth + 1) {
            var escaped: [UInt8] = []
            for byte in text {
                if bytes.bool() {
                    let hex = String(byte, radix: 16)
                    escaped += Array(("%" + (bytes.bool() ? hex.uppercased() : hex)).utf8)
                } else {
                    escaped.append(byte)
                }
            }
            text = escaped
        }
        return text
    }

    private static func holdsSecret(_ bytes: [UInt8], _ secrets: [String]) -> Bool {
        secrets.contains { spellsSecret($0, in: bytes) }
    }
}
