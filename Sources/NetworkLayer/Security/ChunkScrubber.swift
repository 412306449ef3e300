/// Scrubs a body that arrives in pieces (a recorded stream) of the request's secret values, as
/// ``Redactor/scrub(bytes:secrets:)`` scrubs a whole one, with bounded memory.
///
/// What must stay true: no secret, in any spelling the redactor looks for, is ever given out, even
/// when the pieces cut it anywhere. So the last ``Redactor/longestSpelling(of:)`` bytes of what has
/// arrived are held back until the next piece (or the end) shows how they go on: a spelling that a
/// cut hides starts within them. A body without a secret comes out byte for byte as it went in.
struct ChunkScrubber {
    private let secrets: [String]
    private let holdBack: Int
    private var held: [UInt8] = []

    init(secrets: [String]) {
        self.secrets = secrets
        holdBack = Redactor.longestSpelling(of: secrets)
    }

    /// What of the body so far can be written now, `chunk` included.
    mutating func scrub(_ chunk: some Collection<UInt8>) -> [UInt8] {
        guard !secrets.isEmpty else { return Array(chunk) }
        var bytes = held
        bytes.append(contentsOf: chunk)
        bytes = Redactor.scrub(bytes: bytes, secrets: secrets) ?? bytes
        let kept = min(holdBack, bytes.count)
        held = Array(bytes.suffix(kept))
        bytes.removeLast(kept)
        return bytes
    }

    /// The rest of the body, once it has ended.
    mutating func finish() -> [UInt8] {
        defer { held = [] }
        return held
    }
}
