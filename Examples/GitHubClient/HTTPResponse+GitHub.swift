import Foundation
import NetworkLayer

// What a GitHub response says besides its body: where the next page is, and how much of the
// rate limit is left. Both are read from headers, which are outside input: nothing here traps
// on a malformed value, it is only not understood.

extension HTTPResponse {
    /// The target of the `Link` header's link with relation `relation` (`"next"`), resolved
    /// against this response's URL; `nil` when there is none.
    ///
    /// `Link: <https://api.github.com/user/583231/repos?per_page=3&page=2>; rel="next", <…>; rel="last"`
    /// (RFC 8288: each link is `<URI>` and parameters; `rel` may list several relations).
    func link(_ relation: String) -> URL? {
        guard let header = value(forHeader: "Link") else { return nil }
        var rest = Substring(header)
        while let open = rest.firstIndex(of: "<"), let close = rest[open...].firstIndex(of: ">") {
            let target = rest[rest.index(after: open)..<close]
            rest = rest[rest.index(after: close)...]
            // The parameters run to the next link (or the end).
            let parameters = rest.prefix { $0 != "<" }
            for parameter in parameters.split(separator: ";") {
                let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard pair.count == 2, pair[0].lowercased() == "rel" else { continue }
                let relations = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\",")).split(separator: " ")
                if relations.contains(where: { $0.lowercased() == relation }) {
                    return URL(string: String(target), relativeTo: url)?.absoluteURL
                }
            }
        }
        return nil
    }

    /// The rate limit this response reports (`X-RateLimit-*`), or `nil` without one.
    var rateLimit: RateLimit? { RateLimit(self) }
}

/// GitHub's rate limit as a response reports it: `X-RateLimit-Limit`, `-Remaining`, `-Reset`.
struct RateLimit: Sendable {
    /// Requests allowed per hour: 5,000 with a token, 60 without.
    let limit: Int
    /// Requests left until ``reset``.
    let remaining: Int
    /// When the count starts again.
    let reset: Date

    init?(_ response: HTTPResponse) {
        guard let limit = response.value(forHeader: "X-RateLimit-Limit").flatMap({ Int($0) }),
              let remaining = response.value(forHeader: "X-RateLimit-Remaining").flatMap({ Int($0) }),
              let reset = response.value(forHeader: "X-RateLimit-Reset").flatMap({ Int($0) }) else { return nil }
        self.limit = limit
        self.remaining = remaining
        self.reset = Date(timeIntervalSince1970: TimeInterval(reset))
    }

    /// Whole minutes until the reset, clamped to 0 … 1 day before it becomes an `Int` (a header
    /// from a server may say anything).
    var minutesToReset: Int {
        Int((min(max(reset.timeIntervalSinceNow, 0), 86_400) / 60).rounded(.up))
    }
}
