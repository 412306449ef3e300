// The request pipeline's public API (issue 24), exactly as the issue writes it.

import Foundation
import NetworkLayer

struct Metrics: RequestInterceptor {}

struct Signer: RequestInterceptor {
    func adapt(_ request: inout OutgoingRequest) async throws {
        let sig = String(request.url.path.count)
        request.url = request.url
        request.method = .put
        request.setQueryItem("X-Signature", sig, secret: true)
        request.setBody(Data("{}".utf8), contentType: "application/json")
        request.timeout = .seconds(5)
        _ = request.timeout < .seconds(1)
        request.addHeader("Accept", "text/html")
        _ = request.values(forHeader: "Accept")
    }
}

struct RetryConflictOnce: RequestInterceptor {
    func retry(_ request: OutgoingRequest, after outcome: RequestOutcome, attempt: Int) async -> RetryDecision {
        switch outcome {
        case .response(let response) where response.statusCode == 409 && attempt == 1: return .retryAfter(.milliseconds(200))
        case .response: return .doNotRetry
        case .failure: return attempt < 2 ? .retry : .doNotRetry
        }
    }
}

struct Shop: ServiceProvider {
    var host: String { "shop.example" }
    var httpScheme: HTTPScheme { .https }
    var interceptors: [any RequestInterceptor] { [Signer()] }
    var redirectPolicy: RedirectPolicy? { .sameOrigin }
}

struct Payments: ServiceProvider {
    var host: String { "payments.example" }
    var httpScheme: HTTPScheme { .https }
    var areMocksEnabled: Bool? { true }
}

struct GitHub: ServiceProvider {
    var host: String { "api.github.com" }
    var httpScheme: HTTPScheme { .https }
}

struct Base64: Decodable, Sendable {
    let bytes: Data
    init(_ body: Data) throws { bytes = Data(base64Encoded: body) ?? Data() }
}

final class NextPage: BaseRequest<[String]> {}
final class Download: BaseRequest<Base64> {}

func checkPipelineAPI(nextLinkURL: URL) {
    Net.interceptors = [Metrics()]
    Net.redirectPolicy = .follow()
    Net.redirectPolicy = .follow(maximum: 3)
    Net.redirectPolicy = .none
    Net.redirectPolicy = .custom { redirect in redirect.to.host == redirect.from.host && redirect.statusCode != 303 }
    let request = Download(serviceProvider: Shop(), endpoint: "/files/1")
    request.interceptors = [RetryConflictOnce()]
    request.redirectPolicy = .sameOrigin
    request.parser = { response in try Base64(response.body) }
    request.httpMethod = HTTPMethod(rawValue: "PROPFIND")
    let next = NextPage(serviceProvider: GitHub(), url: nextLinkURL)
    Net.mocks.registerFallback { recorded in recorded.url.path.isEmpty ? nil : .status(404) }
    Net.mocks.registerFallback { recorded in .status(404) }
    let decision: RetryDecision = .retry
    print(next.endpoint, decision == .doNotRetry, RedirectPolicy.maximumRedirects, Payments().areMocksEnabled ?? false,
          Shop().interceptors.count)
}
