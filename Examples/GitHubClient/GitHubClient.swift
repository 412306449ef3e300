import Foundation
import NetworkLayer

/// What a program asks GitHub for, in its own words: the provider says how to talk to GitHub,
/// this says what to ask.
struct GitHubClient {
    let github: GitHub

    /// A walk stops here even if the server keeps naming a next page (a `Link` that points back
    /// to itself would otherwise never end).
    static let maximumPages = 50

    /// One page of a list, as it was answered.
    struct Page: Sendable {
        /// 1 for the first page.
        let number: Int
        let repositories: [Repository]
        /// 200, or 304 when the page kept with its ETag answered.
        let statusCode: Int
        /// The rate limit after this request.
        let rateLimit: RateLimit?
    }

    /// Every page of `user`'s public repositories: the first by its path, each next one by the
    /// absolute URL the previous response's `Link: <…>; rel="next"` gives (GitHub's next URLs are
    /// `/user/<id>/repos?page=2`, not something a client could build). `onPage` sees each page as
    /// it arrives.
    ///
    /// - Throws: the first failure, as a ``NetworkError``; the pages before it went to `onPage`.
    func repositoryPages(of user: String, perPage: Int, onPage: (Page) -> Void) async throws(NetworkError) -> [Page] {
        var request: BaseRequest<[Repository]> = UserRepositories(user: user, perPage: perPage, provider: github)
        var pages: [Page] = []
        for number in 1...Self.maximumPages {
            let (repositories, response) = try await Net.performWithResponse(request)
            let page = Page(number: number, repositories: repositories, statusCode: response.statusCode,
                            rateLimit: response.rateLimit)
            pages.append(page)
            onPage(page)
            // A 304 stands for the page kept with its ETag: its Link is the 304's, else the kept one's.
            guard let next = github.etags.page(for: response).link("next") else { break }
            request = BaseRequest(serviceProvider: github, url: next)
        }
        return pages
    }
}
