import Foundation

/// The exchanges a manager recorded while ``NetworkManager/recordsTraffic`` was on, exportable
/// as HAR 1.2 for a HAR viewer, Chromium's devtools (Network › Import HAR) or Charles.
///
/// Every hop that went over the network is one entry, failed ones too, with libcurl's timings;
/// mocked and cached responses are not recorded. What is recorded is redacted when it is
/// recorded, as the log redacts it. Bounded: the newest ``entryLimit`` entries, each body's first
/// ``bodyLimit`` bytes, ``totalBodyLimit`` in all; a download's or a stream's body is never kept.
public final class RecordedTraffic: Sendable {
    public static let entryLimit = 1_000
    public static let bodyLimit = 1 << 20
    public static let totalBodyLimit = 64 << 20

    private struct State {
        var entries: [HAR.Entry] = []
        var bodyBytes = 0
    }
    private let state = Protected(State())

    init() {}

    public var count: Int { state.withLock { $0.entries.count } }

    public func removeAll() {
        state.withLock { $0 = State() }
    }

    /// The entries as a HAR 1.2 document (UTF-8 JSON), oldest first.
    ///
    /// - Throws: ``NetworkError/invalidRequest(_:)`` if the document cannot be encoded.
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
