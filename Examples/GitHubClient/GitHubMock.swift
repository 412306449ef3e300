import Foundation
import NetworkLayer
import Synchronization

/// A small fake of api.github.com for mock mode, registered in code with `Net.mocks`, answering as
/// GitHub does:
///
/// - `GET /users/octocat/repos?per_page=N`, and the pages its `Link` headers name by absolute URL
///   under GitHub's own spelling, `/user/583231/repos?per_page=N&page=2`;
/// - a weak `ETag` per page, and `304 Not Modified` (no body, not counted against the rate limit)
///   when `If-None-Match` matches it;
/// - `X-RateLimit-*` headers, 5,000 requests with a token, 60 without; `403` with GitHub's message
///   when none is left;
/// - `401 Bad credentials` for a token it does not know, `404 Not Found` for anything else
///   (`registerFallback`), with GitHub's error body.
///
/// The repositories are octocat's, their numbers made up.
final class GitHubMock: Sendable {
    /// The only token it accepts: a made-up value, not shaped like a real GitHub token.
    static let token = "mock-token-4d1f0c9b7e52"

    private struct MockRepository: Encodable {
        let name: String
        let fullName: String
        let description: String?
        var stargazersCount: Int
        let language: String?
    }

    private struct State {
        var repositories: [MockRepository]
        /// Requests left with a token and without one.
        var remaining: (authenticated: Int, anonymous: Int)
    }

    private let login = "octocat"
    private let userID = 583231
    private let reset = Int(Date().timeIntervalSince1970) + 3600
    private let state: Mutex<State>

    /// - Parameter remaining: requests left with a token at the start (to see the limit run out).
    init(remaining: Int = 5000) {
        func repository(_ name: String, _ description: String?, _ stars: Int, _ language: String?) -> MockRepository {
            MockRepository(name: name, fullName: "octocat/\(name)", description: description, stargazersCount: stars, language: language)
        }
        state = Mutex(State(repositories: [
            repository("boysenberry-repo-1", "Testing", 390, nil),
            repository("git-consortium", "This repo is for demonstration purposes only.", 160, nil),
            repository("hello-worId", "My first repository on GitHub.", 350, nil),
            repository("Hello-World", "My first repository on GitHub!", 2900, nil),
            repository("linguist", "Language Savant. If your repository's language is being reported incorrectly, send us a pull request!", 230, "Ruby"),
            repository("octocat.github.io", nil, 840, "CSS"),
            repository("Spoon-Knife", "This repo is for demonstration purposes only.", 13100, "HTML"),
            // Anyone can write a terminal escape sequence into a description: the client prints it escaped.
            repository("test-repo1", "\u{1B}[31mA red description\u{1B}[0m", 70, nil),
        ], remaining: (min(max(remaining, 0), 5000), 60)))
    }

    /// Answers `net`'s requests in mock mode from now on.
    func install(on net: NetworkManager) {
        net.mocks.register(.get, "/users/\(login)/repos") { [self] request in answer(request, listing: true) }
        net.mocks.register(.get, "/user/\(userID)/repos") { [self] request in answer(request, listing: true) }
        net.mocks.registerFallback { [self] request in answer(request, listing: false) }
    }

    /// Someone stars `name`: the page that lists it gets a new ETag.
    func star(_ name: String) {
        state.withLock { state in
            if let index = state.repositories.firstIndex(where: { $0.name == name }) { state.repositories[index].stargazersCount += 1 }
        }
    }

    // MARK: - Answering

    private func answer(_ request: RecordedRequest, listing: Bool) -> MockResponse {
        let authorization = request.value(forHeader: "Authorization")
        if let authorization, authorization != "Bearer \(Self.token)" {
            return failure(401, "Bad credentials", headers: [:])
        }
        let authenticated = authorization != nil
        return state.withLock { state in
            let left = authenticated ? state.remaining.authenticated : state.remaining.anonymous
            let limit = authenticated ? 5000 : 60
            guard left > 0 else {
                let message = authenticated ? "API rate limit exceeded for user ID \(userID)."
                    : "API rate limit exceeded for 192.0.2.1. (But here's the good news: Authenticated requests get a higher rate limit.)"
                return failure(403, message, headers: rateHeaders(limit: limit, remaining: 0))
            }
            // Every request but a 304 counts.
            func count() -> [String: String] {
                if authenticated { state.remaining.authenticated -= 1 } else { state.remaining.anonymous -= 1 }
                return rateHeaders(limit: limit, remaining: left - 1)
            }
            guard listing else { return failure(404, "Not Found", headers: count()) }

            let query = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            let perPage = query.first { $0.name == "per_page" }?.value.flatMap { Int($0) }.map { min(max($0, 1), 100) } ?? 30
            let pageCount = max(1, (state.repositories.count + perPage - 1) / perPage)
            let page = query.first { $0.name == "page" }?.value.flatMap { Int($0) }.map { max($0, 1) } ?? 1
            let items = page <= pageCount ? Array(state.repositories.dropFirst((page - 1) * perPage).prefix(perPage)) : []
            let body = (try? Self.encoder.encode(items)) ?? Data("[]".utf8)
            let etag = "W/\"\(Self.fnv1a(body))\""

            var headers = [
                "Cache-Control": "private, max-age=60, s-maxage=60",
                "Vary": "Accept, Authorization, Cookie, X-GitHub-OTP",
                "ETag": etag,
                "X-GitHub-Media-Type": "github.v3; format=json",
            ]
            if let link = link(for: request.url, page: page, of: pageCount, perPage: perPage) { headers["Link"] = link }
            if Self.matches(request.value(forHeader: "If-None-Match"), etag) {
                return .data(Data(), status: 304, headers: headers.merging(rateHeaders(limit: limit, remaining: left)) { $1 })
            }
            headers["Content-Type"] = "application/json; charset=utf-8"
            return .data(body, status: 200, headers: headers.merging(count()) { $1 })
        }
    }

    /// GitHub's `Link`: absolute URLs of the next, last, first and previous pages, as `/user/<id>/repos`.
    private func link(for url: URL, page: Int, of pageCount: Int, perPage: Int) -> String? {
        let origin = "\(url.scheme ?? "https")://\(url.host ?? "api.github.com")" + (url.port.map { ":\($0)" } ?? "")
        func target(_ page: Int) -> String { "<\(origin)/user/\(userID)/repos?per_page=\(perPage)&page=\(page)>" }
        var links: [String] = []
        if page > 1 { links.append("\(target(min(page - 1, pageCount))); rel=\"prev\"") }
        if page < pageCount { links.append("\(target(page + 1)); rel=\"next\"") }
        if page < pageCount { links.append("\(target(pageCount)); rel=\"last\"") }
        if page > 1 { links.append("\(target(1)); rel=\"first\"") }
        return links.isEmpty ? nil : links.joined(separator: ", ")
    }

    private func rateHeaders(limit: Int, remaining: Int) -> [String: String] {
        ["X-RateLimit-Limit": "\(limit)", "X-RateLimit-Remaining": "\(remaining)", "X-RateLimit-Reset": "\(reset)",
         "X-RateLimit-Used": "\(limit - remaining)", "X-RateLimit-Resource": "core"]
    }

    private func failure(_ status: Int, _ message: String, headers: [String: String]) -> MockResponse {
        let body: [String: String] = ["message": message, "documentation_url": "https://docs.github.com/rest", "status": "\(status)"]
        return .data((try? Self.encoder.encode(body)) ?? Data(), status: status,
                     headers: headers.merging(["Content-Type": "application/json; charset=utf-8"]) { $1 })
    }

    /// `If-None-Match` against an ETag, by the weak comparison (RFC 9110 §13.1.2): `W/` ignored,
    /// a list of tags or `*` allowed.
    private static func matches(_ ifNoneMatch: String?, _ etag: String) -> Bool {
        func opaque(_ tag: some StringProtocol) -> String {
            let trimmed = tag.trimmingCharacters(in: .whitespaces)
            return trimmed.hasPrefix("W/") ? String(trimmed.dropFirst(2)) : trimmed
        }
        return ifNoneMatch?.split(separator: ",").contains { opaque($0) == "*" || opaque($0) == opaque(etag) } ?? false
    }

    /// GitHub's JSON: snake_case keys.
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    /// A 64-bit FNV-1a hash of `data` in hex: an ETag that changes when the body does.
    private static func fnv1a(_ data: Data) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(hash, radix: 16)
    }
}
