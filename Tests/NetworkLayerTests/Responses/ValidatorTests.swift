import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// `BaseRequest.validator`: a request's own check of a response with an acceptable status,
/// before the provider's `parseAndValidate`.
@Suite("Validating per request", .sharing)
struct ValidatorTests {
    @Test("A validator's own error reaches the caller as underlyingError, with the response it refused")
    func customErrorIsKept() async throws {
        let server = try await TestServer.shared()
        let request = TestRequest<[String: [String: String]]>(server.provider(), "/headers")
        request.validator = { response in
            if let state = response.value(forHeader: "X-Test-Header"), state == "value1" { throw OrderHeld(reason: state) }
        }
        let error = await networkError { try await makeManager().perform(request) }
        guard case .validation(let context)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(error?.underlyingError as? OrderHeld == OrderHeld(reason: "value1"))
        #expect(context.response?.statusCode == 200)
        #expect(context.response?.value(forHeader: "X-Test-Header") == "value1")
        #expect(error?.errorDescription?.contains("validator") == true)
        #expect(error?.errorDescription?.contains("GET http://127.0.0.1:\(server.port)/headers") == true)
    }

    @Test("A validator that returns lets the response through to parseAndValidate, which runs after it")
    func runsBeforeParseAndValidate() async throws {
        let server = try await TestServer.shared()
        let order = HookOrder()
        var provider = HookProvider(port: server.port)
        provider.inspect = { _ in order.append("parseAndValidate") }
        let request = TestRequest<StatusBody>(provider, "/status/201")
        request.validator = { response in order.append("validator \(response.statusCode)") }
        #expect(try await makeManager().perform(request).status == 201)
        #expect(order.all == ["validator 201", "parseAndValidate"])

        // A validator that throws: parseAndValidate never sees the response.
        let refused = TestRequest<StatusBody>(provider, "/status/200")
        refused.validator = { _ in order.append("refusing validator"); throw OrderHeld(reason: "no") }
        _ = await networkError { try await makeManager().perform(refused) }
        #expect(order.all.suffix(1) == ["refusing validator"])
    }

    @Test("A validator does not run for a response with a failing status: the status error stands",
          arguments: [401, 404, 500])
    func notForFailingStatuses(status: Int) async throws {
        let server = try await TestServer.shared()
        let order = HookOrder()
        let request = TestRequest<StatusBody>(server.provider(), "/status/\(status)")
        request.validator = { _ in order.append("validator") }
        let error = await networkError { try await makeManager().perform(request) }
        #expect(error?.caseName == (status == 500 ? "apiError" : status == 404 ? "notFound" : "unauthorizedAccess"))
        #expect(order.all.isEmpty)
    }

    @Test("With acceptableStatusCodes widened, a validator reads what a failing status says (Retry-After of a 503)")
    func widenedStatusesReachTheValidator() async throws {
        let server = try await TestServer.shared()
        let request = TestRequest<EmptyResponse>(server.provider(), "/retry-after/120")
        request.acceptableStatusCodes = 200..<600
        request.validator = { response in
            if response.statusCode == 503 { throw OrderHeld(reason: "retry after \(response.value(forHeader: "Retry-After") ?? "?")") }
        }
        let error = await networkError { try await makeManager().perform(request) }
        #expect(error?.underlyingError as? OrderHeld == OrderHeld(reason: "retry after 120"))
        #expect(error?.context?.response?.statusCode == 503)
    }

    @Test("A NetworkError thrown by a validator reaches the caller as it is, with the response filled in")
    func networkErrorPassesThrough() async throws {
        let server = try await TestServer.shared()
        let request = TestRequest<StatusBody>(server.provider(), "/status/200")
        request.validator = { _ in throw NetworkError.customUser(description: "User deleted", code: 666) }
        let error = await networkError { try await makeManager().perform(request) }
        guard case .customUser(let description, _, let code)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(description == "User deleted" && code == 666)

        let unauthorized = TestRequest<StatusBody>(server.provider(), "/status/200")
        unauthorized.validator = { _ in throw NetworkError.unauthorizedAccess }
        let refused = await networkError { try await makeManager().perform(unauthorized) }
        #expect(refused?.caseName == "unauthorizedAccess")
        #expect(refused?.context?.response?.statusCode == 200)
    }

    @Test("A CancellationError thrown by a validator is .cancelled")
    func cancellation() async throws {
        let server = try await TestServer.shared()
        let request = TestRequest<StatusBody>(server.provider(), "/status/200")
        request.validator = { _ in throw CancellationError() }
        let error = await networkError { try await makeManager().perform(request) }
        #expect(error?.caseName == "cancelled")
    }

    @Test("In mock mode the validator runs on the mocked response")
    func mockMode() async throws {
        let provider = TestProvider(host: "api.example.com", httpScheme: .https)
        let request = MockedRequest<User>(provider, "/users/7", mock: nil)
        request.validator = { response in
            #expect(response.isMocked)
            throw OrderHeld(reason: String(decoding: response.body, as: UTF8.self))
        }
        let error = await networkError { try await makeManager(mocks: fixtureMocks).perform(request) }
        #expect((error?.underlyingError as? OrderHeld)?.reason.contains("Ada") == true)
    }

    @Test("The completion-handler API delivers the validator's error the same way")
    func completionHandler() async throws {
        let server = try await TestServer.shared()
        let request = TestRequest<StatusBody>(server.provider(), "/status/200")
        request.validator = { _ in throw OrderHeld(reason: "held") }
        let recorder = CallRecorder<Result<StatusBody, NetworkError>>()
        makeManager().performRequest(request: request) { recorder.record($0) }
        let calls = await recorder.waitForCalls()
        guard calls.count == 1, case .failure(let error) = calls[0] else { Issue.record("got \(calls)"); return }
        #expect(error.underlyingError as? OrderHeld == OrderHeld(reason: "held"))
    }
}
