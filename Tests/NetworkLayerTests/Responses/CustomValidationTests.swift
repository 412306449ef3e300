import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// A provider's own rules: the acceptable statuses it widens (and a request narrows again), and a
/// `parseAndValidate` override that reuses the default steps (`validateStatus(acceptable:)` and
/// `decode(_:)`) and throws errors of its own. A request's `validator` is ``ValidatorTests``.
@Suite("A provider's own validation", .sharing)
struct CustomValidationTests {
    @Test("A provider's parseAndValidate can reuse validateStatus(acceptable:) and decode(_:)")
    func overrideReusesTheDefaultSteps() async throws {
        let server = try await TestServer.shared()
        let provider = LenientProvider(port: server.port)
        let body = try await Net.perform(TestRequest<StatusBody>(provider, "/status/404"))
        #expect(body.status == 404)
        let error = await networkError { try await Net.perform(TestRequest<StatusBody>(provider, "/status/500")) }
        guard case .apiError(let context)? = error else {
            Issue.record("expected .apiError with status 500, got \(String(describing: error))")
            return
        }
        #expect(context.statusCode == 500)
    }

    @Test("A NetworkError thrown by parseAndValidate reaches the caller unchanged")
    func providerErrorPassesThrough() async throws {
        let server = try await TestServer.shared()
        let error = await networkError {
            try await Net.perform(TestRequest<StatusBody>(EnvelopeProvider(port: server.port), "/status/299"))
        }
        guard case .customUser(let description, let recovery, let code)? = error else {
            Issue.record("expected .customUser, got \(String(describing: error))")
            return
        }
        #expect(description == "The backend said no.")
        #expect(recovery == "Ask nicely.")
        #expect(code == 299)
    }

    @Test("Any other error thrown by parseAndValidate arrives as a NetworkError that keeps its message")
    func providerForeignErrorWrapped() async throws {
        let server = try await TestServer.shared()
        let error = await networkError {
            try await Net.perform(TestRequest<StatusBody>(EnvelopeProvider(port: server.port), "/status/298"))
        }
        let description = try #require(error?.errorDescription)
        #expect(description.contains(CocoaError(.featureUnsupported).localizedDescription), "\(description)")
        #expect(error?.recoverySuggestion?.isEmpty == false)
    }

    @Test("acceptableStatusCodes widen per provider and narrow again per request")
    func acceptableStatusesArePerProviderAndPerRequest() async throws {
        try await withTestServer { server in
            // The provider accepts 404 as success: the body decodes.
            var lenient = ShopProvider(port: server.port)
            lenient.acceptableStatusCodes = 200..<500
            let status = try await makeManager().perform(TestRequest<[String: Int]>(lenient, "/status/404"))
            #expect(status == ["status": 404])
            // A request narrows it again.
            let strict = TestRequest<[String: Int]>(lenient, "/status/201")
            strict.acceptableStatusCodes = 200..<201
            let error = await networkError { try await makeManager().perform(strict) }
            guard case .apiError(let context) = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(context.statusCode == 201)
        }
    }
}
