import Dispatch
import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// `performRequestWithResponse(request:completion:)`: the completion-handler API with the
/// `HTTPResponse` beside the value.
@Suite("Completion handler with the response", .sharing)
struct PerformRequestWithResponseTests {
    @Test("On success the completion runs exactly once, on the completion queue, with the value and its response")
    func success() async throws {
        let server = try await TestServer.shared()
        let net = makeManager()
        let queue = DispatchQueue(label: "PerformRequestWithResponseTests")
        net.completionQueue = queue
        let mark = QueueMark(queue)
        let calls = CallRecorder<(result: Result<(value: HeadersEcho, response: HTTPResponse), NetworkError>, onQueue: Bool)>()
        net.performRequestWithResponse(request: TestRequest<HeadersEcho>(server.provider(), "/headers")) { result in
            calls.record((result, mark.isCurrent))
        }
        let results = await calls.waitForCalls()
        #expect(results.count == 1)
        #expect(results.first?.onQueue == true)
        let (value, response) = try #require(try results.first?.result.get())
        #expect(!value.headers.isEmpty)
        #expect(response.statusCode == 200)
        #expect(response.value(forHeader: "X-Test-Header") == "value1")
        #expect(response.url.path == "/headers")
    }

    @Test("On failure it delivers the error, with the failing response in its context")
    func failure() async throws {
        let httpbin = try await HTTPBinServer.shared()
        let calls = CallRecorder<Result<(value: StatusBody, response: HTTPResponse), NetworkError>>()
        makeManager().performRequestWithResponse(request: TestRequest<StatusBody>(httpbin.provider(), "/status/401")) { calls.record($0) }
        let results = await calls.waitForCalls()
        #expect(results.count == 1)
        guard case .failure(let error)? = results.first, case .unauthorizedAccess = error else { Issue.record("got \(results)"); return }
        #expect(error.context?.response?.value(forHeader: "WWW-Authenticate") == #"Basic realm="Fake Realm""#)
    }

    @Test("Cancelling through the handle delivers .cancelled exactly once")
    func cancel() async throws {
        let server = try await TestServer.shared()
        let calls = CallRecorder<Result<(value: DelayBody, response: HTTPResponse), NetworkError>>()
        let handle = makeManager().performRequestWithResponse(request: TestRequest<DelayBody>(server.provider(), "/delay/5")) { calls.record($0) }
        handle.cancel()
        let results = await calls.waitForCalls()
        #expect(results.count == 1)
        guard case .failure(.cancelled)? = results.first else { Issue.record("got \(results)"); return }
        #expect(handle.isCancelled)
    }
}
