import Foundation
import NetworkLayer
import Synchronization

/// Conditional requests, written out: each page is kept with its `ETag`, the next GET of that URL
/// sends it back as `If-None-Match`, and a `304 Not Modified` (no body) is answered with the page
/// kept. GitHub does not count a 304 against the rate limit, so walking an unchanged list again
/// costs nothing but the round trips.
///
/// Two halves: ``adapt(_:)``, an interceptor link the provider installs (so every attempt of every
/// request to GitHub passes it, page 2's absolute URL included), and ``page(for:)`` /
/// ``remember(_:)``, which the provider's `parseAndValidate` calls on each response.
///
/// Bounded: at most ``byteLimit`` bytes of bodies are kept, the oldest dropped first.
final class ETagStore: RequestInterceptor {
    /// The most body bytes kept: 8 MB.
    static let byteLimit = 8 << 20
    /// An `ETag` longer than this is not kept (GitHub's are about 70 bytes).
    static let etagLimit = 1024

    private struct State {
        var pages: [String: HTTPResponse] = [:]
        var order: [String] = []
        var bytes = 0
    }

    private let state = Mutex(State())

    /// Sends the kept page's `ETag` with a GET of its URL.
    func adapt(_ request: inout OutgoingRequest) async throws {
        guard request.method == .get, let etag = kept(request.url)?.value(forHeader: "ETag") else { return }
        request.setHeader("If-None-Match", etag, secret: false)
    }

    /// The page `response` stands for: for a 304, the page kept for its URL, its headers updated
    /// with the 304's (RFC 9111 §4.3.4: the 304 may bring a fresh `Link` or `ETag`); otherwise
    /// `response` itself. A 304 with nothing kept stays a 304 (validation then refuses it).
    func page(for response: HTTPResponse) -> HTTPResponse {
        guard response.statusCode == 304, let kept = kept(response.url) else { return response }
        var headers = kept.headers
        for (name, value) in response.headers where name.lowercased() != "content-length" {
            headers = headers.filter { $0.key.lowercased() != name.lowercased() }
            headers[name] = value
        }
        return HTTPResponse(statusCode: kept.statusCode, headers: headers, body: kept.body, url: response.url,
                            isMocked: response.isMocked)
    }

    /// Keeps a successful page that has an `ETag`, replacing what was kept for its URL.
    func remember(_ page: HTTPResponse) {
        guard (200..<300).contains(page.statusCode), let etag = page.value(forHeader: "ETag"),
              etag.utf8.count <= Self.etagLimit, page.body.count <= Self.byteLimit / 4 else { return }
        let key = page.url.absoluteString
        state.withLock { state in
            if let old = state.pages.removeValue(forKey: key) {
                state.bytes -= old.body.count
                state.order.removeAll { $0 == key }
            }
            state.pages[key] = page
            state.order.append(key)
            state.bytes += page.body.count
            while state.bytes > Self.byteLimit, !state.order.isEmpty {
                let oldest = state.order.removeFirst()
                state.bytes -= state.pages.removeValue(forKey: oldest)?.body.count ?? 0
            }
        }
    }

    private func kept(_ url: URL) -> HTTPResponse? {
        state.withLock { $0.pages[url.absoluteString] }
    }
}
