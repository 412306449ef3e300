import Foundation

/// What ``MockDrift/check(against:requests:sendingNonIdempotent:manager:isolation:)`` found: one
/// entry per request, in the order given. Its texts name requests by method and path with secrets
/// redacted, describe bodies by their shape only (keys and kinds, never values), and hold no
/// control character; print it for a test failure, or write ``json`` for CI.
public struct MockDriftReport: Sendable, Equatable, Codable, CustomStringConvertible {
    /// One request's comparison.
    public struct Entry: Sendable, Equatable, Codable {
        /// The method and path, the query's secrets redacted: `GET /search?term=a&key=<redacted>`.
        public var request: String
        /// The mock that answered it: `the mock file GET/search`, `the mock registered for Profile`; `nil` when none did.
        public var mock: String?
        /// What the mock says and the live answer does not, each a line such as
        /// `items[].owner.login: string in the mock, missing live`; a failed live request or an
        /// unusable mock is one too. Any makes the request drifted.
        public var differences: [String]
        /// What the live answer has and the mock lacks (`nickname: string live, not in the mock`): informational.
        public var additions: [String]
        /// Informational notes, such as another request answered by the same mock.
        public var notes: [String]
        /// Why the request was not compared; `nil` when it was.
        public var skipped: String?
    }

    /// Every request checked, in the order given.
    public var entries: [Entry]

    /// The requests whose mock no longer tells the truth (or that could not be compared for a failure).
    public var drifted: [Entry] { entries.filter { !$0.differences.isEmpty } }

    /// The requests whose live answer has something the mock lacks; they may be drifted too.
    public var additions: [Entry] { entries.filter { !$0.additions.isEmpty } }

    /// The requests left out, each with its reason (``Entry/skipped``).
    public var skipped: [Entry] { entries.filter { $0.skipped != nil } }

    /// The report as JSON (keys sorted): `{"entries": [{"request", "mock", "differences", "additions", "notes", "skipped"}]}`.
    public var json: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return (try? encoder.encode(self)) ?? Data("{\"entries\":[]}".utf8)
    }

    public var description: String {
        var lines = ["MockDrift: \(entries.count) request\(entries.count == 1 ? "" : "s"), \(drifted.count) drifted, "
                     + "\(additions.count) with additions, \(skipped.count) skipped"]
        for entry in entries {
            let status = entry.skipped != nil ? "SKIPPED" : !entry.differences.isEmpty ? "DRIFTED" : !entry.additions.isEmpty ? "ADDED" : "OK"
            lines.append("\(status) \(entry.request)" + (entry.mock.map { " (\($0))" } ?? "") + (entry.skipped.map { ": \($0)" } ?? ""))
            lines += entry.differences.map { "  - \($0)" } + entry.additions.map { "  + \($0)" } + entry.notes.map { "  note: \($0)" }
        }
        return lines.joined(separator: "\n")
    }
}

extension MockDriftReport.Entry {
    /// The most lines an entry keeps of each kind; the rest are counted in a last line.
    static let lineLimit = 100

    /// The entry with every text scrubbed of `secrets`, on one line without control characters, and
    /// cut to 300 characters: texts quote a server's keys and headers.
    func cleaned(secrets: [String]) -> Self {
        func clean(_ text: String) -> String {
            let line = Redactor.scrub(text, secrets: secrets).escapingControlCharacters
            return line.count > 300 ? line.prefix(300) + "…" : line
        }
        func cleanLines(_ lines: [String]) -> [String] {
            let kept = lines.prefix(Self.lineLimit).map(clean)
            return lines.count > Self.lineLimit ? kept + ["… and \(lines.count - Self.lineLimit) more"] : kept
        }
        return Self(request: clean(request), mock: mock.map(clean), differences: cleanLines(differences),
                    additions: cleanLines(additions), notes: cleanLines(notes), skipped: skipped.map(clean))
    }
}
