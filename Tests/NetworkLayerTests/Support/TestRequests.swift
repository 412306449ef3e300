import Foundation
@testable import NetworkLayer

/// A request for any endpoint of a test server, answering with `Response`.
final class TestRequest<Response: Decodable & Sendable>: BaseRequest<Response> {
    init(_ provider: any ServiceProvider, _ endpoint: String, method: HTTPMethod = .get,
         params: [String: any Sendable] = [:], headers: [String: String] = [:], timeout: TimeInterval = 10) {
        super.init(serviceProvider: provider, endpoint: endpoint)
        httpMethod = method
        self.params = params
        additionalHeaders = headers
        self.timeout = timeout
    }
}

/// A request naming its mock file.
final class MockedRequest<Response: Decodable & Sendable>: BaseRequest<Response> {
    init(_ provider: any ServiceProvider, _ endpoint: String, mock: String?, method: HTTPMethod = .get,
         timeout: TimeInterval = 10) {
        super.init(serviceProvider: provider, endpoint: endpoint)
        mockedResponseFilename = mock
        httpMethod = method
        self.timeout = timeout
    }
}

/// A request with an explicit body.
final class BodyRequest<Response: Decodable & Sendable>: BaseRequest<Response> {
    init(_ provider: any ServiceProvider, _ endpoint: String, method: HTTPMethod = .post, body: RequestBody?,
         params: [String: any Sendable] = [:], headers: [String: String] = [:], timeout: TimeInterval = 30) {
        super.init(serviceProvider: provider, endpoint: endpoint)
        httpMethod = method
        self.body = body
        self.params = params
        additionalHeaders = headers
        self.timeout = timeout
    }
}

/// A download request for a test server.
final class DownloadRequest: BaseRequest<DownloadedFile> {
    init(_ provider: any ServiceProvider, _ endpoint: String, to destination: URL, timeout: TimeInterval = 60) {
        super.init(serviceProvider: provider, endpoint: endpoint)
        downloadDestination = destination
        self.timeout = timeout
    }
}
