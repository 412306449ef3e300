import Foundation
import Synchronization

/// The exchanges a manager recorded while ``NetworkManager/recordsTraffic`` was on, exportable
/// as HAR 1.2 for a HAR viewer, Chromium's devtools (Network › Import HAR) or Charles.
///
/// ```swift
/// Net.recordsTraffic = true
/// // … requests …
/// try Net.recordedTraffic.har().write(to: URL(fileURLWithPath: "session.har"))
/// ```
///
/// Every hop that went over the network is one entry (a redirect's hops, each retry), failed
/// ones too (status 0, the error in `_error`), with libcurl's timings. Mocked responses and
/// responses served from the cache are not network traffic and are not recorded. What is
/// recorded is redacted when it is recorded, as the log redacts it: secret headers and query
/// items `<redacted>`, every secret value of the request scrubbed from both bodies.
///
/// Bounded, like ``MockRegistry/requests``: the newest ``entryLimit`` entries, each body's
/// first ``bodyLimit`` bytes (its full size is still stated), at most ``totalBodyLimit`` bytes
/// of bodies in all (the oldest entries go first). A download's or a stream's body is never
/// kept: a 1 GB download is one entry of a few hundred bytes.
public final class RecordedTraffic: Sendable {
    /// The most entries kept: the newest.
    public static let entryLimit = 1_000
    /// The most bytes of one body kept.
    public static let bodyLimit = 1 << 20
    /// The most bytes of bodies kept in all.
    public static let totalBodyLimit = 64 << 20

    private struct State {
        var entries: [HAR.Entry] = []
        var bodyBytes = 0
    }
    private let state = Mutex(State())

    init() {}

    /// How many entries are kept.
    public var count: Int { state.withLock { $0.entries.count } }

    /// Forgets every entry.
    public func removeAll() {
        state.withLock { $0 = State() }
    }

    /// The entries as a HAR 1.2 document (UTF-8 JSON), oldest first.
    ///
    /// - Throws: ``NetworkError/invalidRequest(_:)`` if the document cannot be encoded (it
    ///   always can: every text in it is valid UTF-8).
    public func har() throws(NetworkError) -> Data {
        let entries = state.withLock { $0.entries }
        let document = HAR.Document(log: .init(creator: .init(name: "NetworkLayer", version: NetworkLayerInfo.version), entries: entries))
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return try encoder.encode(document)
        } catch {
            throw .invalidRequest(.init(reason: "the recorded traffic could not be encoded as HAR: \(error)", underlyingError: error))
        }
    }

    /// Keeps `entry`, dropping the oldest beyond the bounds.
    func append(_ entry: HAR.Entry) {
        state.withLock { state in
            state.entries.append(entry)
            state.bodyBytes += entry.bodyBytes
            while state.entries.count > Self.entryLimit || (state.bodyBytes > Self.totalBodyLimit && state.entries.count > 1) {
                state.bodyBytes -= state.entries.removeFirst().bodyBytes
            }
        }
    }
}
