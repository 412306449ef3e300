import Foundation
@testable import NetworkLayer

/// A subclass exactly as the README writes one: no annotations, settings in its initializer.
final class SearchRequest: BaseRequest<Echo> {
    init(provider: any ServiceProvider, term: String, limit: Int) {
        super.init(serviceProvider: provider, endpoint: "/echo/search")
        params = ["term": term, "limit": limit]
        additionalHeaders = ["X-Screen": "search"]
        mockedResponseFilename = "SearchMockedResponse"
    }
}

/// A main-actor object (a view model) that builds its request, keeps it, and performs it later.
@MainActor
final class SearchViewModel {
    private let provider: any ServiceProvider
    private var pendingRequest: SearchRequest?
    private(set) var results: [String] = []

    init(provider: any ServiceProvider) { self.provider = provider }

    func prepare(term: String) {
        pendingRequest = SearchRequest(provider: provider, term: term, limit: 3)
    }

    func load() async throws {
        guard let request = pendingRequest else { return }
        let echo = try await Net.perform(request)
        results = echo.args["term"] ?? []
    }
}
