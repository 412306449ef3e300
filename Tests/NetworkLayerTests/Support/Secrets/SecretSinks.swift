import Foundation
import Testing
@testable import NetworkLayer

/// A manager that writes a request everywhere the library shows one: the text log, log entries,
/// recorded traffic (HAR) and record mode's files; and what each of those holds afterwards, with
/// the errors the test adds, to look for a secret in.
final class SecretSinks: Sendable {
    let net: NetworkManager
    let log = LogCollector()
    let entries = LogEntryCollector()
    let findings = SecretFindings()
    /// Where record mode writes a ``MockedRequest``'s files.
    let recordings: URL

    init() throws {
        recordings = try temporaryDirectory()
        net = makeManager(log: log, entries: entries)
        net.recordsTraffic = true
        net.mockRecordingDirectory = recordings
    }

    deinit {
        try? FileManager.default.removeItem(at: recordings)
    }

    /// Every place and what it holds: the log, the entries, the HAR, the errors and each recorded file.
    func places() throws -> [(place: String, text: String)] {
        var places: [(String, String)] = [("the log", log.text), ("a log entry", entries.texts.joined(separator: "\n")),
                                          ("the HAR", String(decoding: try net.recordedTraffic.har(), as: UTF8.self)),
                                          ("an error", findings.all.joined(separator: "\n"))]
        let files = FileManager.default.enumerator(at: recordings, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        for file in files {
            guard let data = try? Data(contentsOf: file) else { continue }  // a directory
            places.append(("the recorded \(file.path.dropFirst(recordings.path.count))", String(decoding: data, as: UTF8.self)))
        }
        return places
    }

    /// Records an issue for each place that spells `secret`: as it is, JSON-escaped, with
    /// percent-escapes, or in base64 (alone or inside a longer base64 text).
    func expectNowhere(_ secret: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let forms = SecretForms(secret)
        for (place, text) in try places() {
            let leaked = forms.appears(in: text) || spellsSecret(secret, in: Array(text.utf8)) || spellsSecretInBase64(secret, in: text)
            if leaked { Issue.record("\(secret) is spelled in \(place): \(text.prefix(3000))", sourceLocation: sourceLocation) }
        }
    }
}
