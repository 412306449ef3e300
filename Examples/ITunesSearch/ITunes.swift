import Foundation
import NetworkLayer

// The original AMNetworkLayer example: a provider, a request subclass, the response types.

/// The iTunes Search API. `baseURL` points it elsewhere (`--host`).
struct ITunesServiceProvider: ServiceProvider {
    var host = "itunes.apple.com"
    var httpScheme = HTTPScheme.https
    var port: Int?

    func createHTTPHeaders() -> [String: String] { ["Accept": "application/json"] }
}

final class ITunesSearchRequest: BaseRequest<ITunesSearchResponse> {
    init(artist: String, limit: Int, provider: ITunesServiceProvider = ITunesServiceProvider()) {
        super.init(serviceProvider: provider, endpoint: "/search")
        params = ["term": artist, "limit": limit]
        mockedResponseFilename = "ITunesSearchMockedResponse"
    }
}

struct ITunesSearchResponse: Codable, Sendable {
    let resultCount: Int?
    let results: [ITunesArtistResult]?
}

struct ITunesArtistResult: Codable, Sendable {
    let artistName: String?
    let collectionName: String?
    let collectionPrice: Double?
    let isStreamable: Bool?
}
