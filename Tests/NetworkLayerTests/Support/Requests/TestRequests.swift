import Foundation
@testable import NetworkLayer

/// A request for any endpoint of a test server, answering with `Response`.
/// `timeout` in seconds, or a `Duration` for the values seconds cannot say (`.seconds(Int64.max)`).
final class TestRequest<Response: Decodable & Sendable>: BaseRequest<Response> {
    init(_ provider: any ServiceProvider, _ endpoint: String, method: HTTPMethod = .get,
         params: [String: any Sendable] = [:], headers: [String: String] = [:], timeout: Duration) {
        super.init(serviceProvider: provider, endpoint: endpoint)
        httpMethod = method
        self.params = params
        additionalHeaders = headers
        requestTimeout = timeout
    }

    convenience init(_ provider: any ServiceProvider, _ endpoint: String, method: HTTPMethod = .get,
                     params: [String: any Sendable] = [:], headers: [String: String] = [:], timeout: TimeInterval = TestTimeout.seconds(10)) {
        self.init(provider, endpoint, method: method, params: params, headers: headers, timeout: .seconds(timeout))
    }
}

/// A request naming its mock file.
final class MockedRequest<Response: Decodable & Sendable>: BaseRequest<Response> {
    init(_ provider: any ServiceProvider, _ endpoint: String, mock: String?, method: HTTPMethod = .get, timeout: Duration) {
        super.init(serviceProvider: provider, endpoint: endpoint)
        mockedResponseFilename = mock
        httpMethod = method
        requestTimeout = timeout
    }

    convenience init(_ provider: any ServiceProvider, _ endpoint: String, mock: String?, method: HTTPMethod = .get,
                     timeout: TimeInterval = TestTimeout.seconds(10)) {
        self.init(provider, endpoint, mock: mock, method: method, timeout: .seconds(timeout))
    }
}

/// A request with an explicit body.
final class BodyRequest<Response: Decodable & Sendable>: BaseRequest<Response> {
    init(_ provider: any ServiceProvider, _ endpoint: String, method: HTTPMethod = .post, body: RequestBody?,
         params: [String: any Sendable] = [:], headers: [String: String] = [:], timeout: TimeInterval = TestTimeout.seconds(30)) {
        super.init(serviceProvider: provider, endpoint: endpoint)
        httpMethod = method
        self.body = body
        self.params = params
        additionalHeaders = headers
        requestTimeout = .seconds(timeout)
    }
}

/// A download request for a test server.
final class DownloadRequest: BaseRequest<DownloadedFile> {
    init(_ provider: any ServiceProvider, _ endpoint: String, to destination: URL, timeout: TimeInterval = TestTimeout.seconds(60)) {
        super.init(serviceProvider: provider, endpoint: endpoint)
        downloadDestination = destination
        requestTimeout = .seconds(timeout)
    }
}

/// `GET /profile`, a request class mocks can be registered for (subclassed by ``AdminProfileRequest``).
class ProfileRequest: BaseRequest<Profile> {
    init(_ provider: any ServiceProvider, endpoint: String = "/profile") {
        super.init(serviceProvider: provider, endpoint: endpoint)
    }
}

/// `GET /admin/profile`: a subclass of ``ProfileRequest``.
final class AdminProfileRequest: ProfileRequest {
    init(_ provider: any ServiceProvider) {
        super.init(provider, endpoint: "/admin/profile")
    }
}

/// `POST /login` with a JSON body of credentials, answered with a ``Token``.
final class LoginRequest: BaseRequest<Token> {
    init(_ provider: any ServiceProvider, user: String, password: String) {
        super.init(serviceProvider: provider, endpoint: "/login")
        httpMethod = .post
        params = ["user": user, "password": password]
    }
}
