import Foundation
import NetworkLayer

// The backend, described once: where it lives, how requests prove who they come from, how its
// answers are validated and decoded, and the ETag link every request passes through.

/// The GitHub REST API (`https://api.github.com`).
struct GitHub: ServiceProvider {
    var host = "api.github.com"
    var httpScheme = HTTPScheme.https
    var port: Int?

    /// A personal access token, or `nil` to ask without one (60 requests an hour instead of 5,000).
    /// Sent as `Authorization: Bearer …`: the library redacts it in its log, in errors and in
    /// copy-as-curl, and sends it only to this origin (a `Link` elsewhere would go without it).
    let token: String?
    /// The ETags of the pages seen so far (one store per token: GitHub's answers vary by it).
    let etags: ETagStore

    var authentication: Authentication? { token.map { .bearer($0) } }

    func createHTTPHeaders() -> [String: String] {
        ["Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28"]
    }

    /// Adds `If-None-Match` to every GET whose page is stored.
    var interceptors: [any RequestInterceptor] { [etags] }

    /// GitHub's failing statuses come with `{"message": "…", "documentation_url": "…"}`.
    var errorBodyType: (any ServerErrorBody.Type)? { GitHubError.self }

    var jsonDecoder: JSONDecoder { Self.decoder }
    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase  // stargazers_count → stargazersCount
        return decoder
    }()

    /// The default steps (validate the status, decode the body), with a `304 Not Modified` answered
    /// by the page stored with that ETag: a 304 has no body, the stored 200 has.
    func parseAndValidate<Response: Decodable>(_ response: HTTPResponse, as type: Response.Type) throws -> Response {
        let page = etags.page(for: response)
        try page.validateStatus()
        etags.remember(page)
        return try page.decode(type, using: jsonDecoder)
    }
}

/// The body of GitHub's failing responses.
struct GitHubError: ServerErrorBody {
    let message: String
    let documentationUrl: String?
    var serverMessage: String? { message }
}

/// One repository, as much of it as this client shows.
struct Repository: Decodable, Sendable {
    let fullName: String
    let description: String?
    let stargazersCount: Int
    let language: String?
}

/// `GET /users/{user}/repos`: the first page of a user's public repositories. The next pages are
/// requested by the absolute URL each response's `Link` header gives (see ``GitHubClient``).
final class UserRepositories: BaseRequest<[Repository]> {
    init(user: String, perPage: Int, provider: GitHub) {
        // `user` is checked to be a GitHub login (letters, digits, hyphens) before it gets here.
        super.init(serviceProvider: provider, endpoint: "/users/\(user)/repos")
        params = ["per_page": perPage]
    }
}
