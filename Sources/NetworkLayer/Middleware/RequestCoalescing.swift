import Foundation

/// Identical GETs in flight at the same time share one transfer; each caller validates and decodes
/// the response for itself. Calls with different credentials (headers, client certificate, TLS, the
/// signer's) never share, nor a GET with a body, a stream or a download. The transfer runs with the
/// starting call's settings, and is cancelled only when every waiting caller has cancelled. Put it
/// first among the manager's middlewares.
public final class RequestCoalescing: RequestMiddleware {
    private let inFlight = Protected<[Key: SharedCall]>([:])

    public init() {}

    public func intercept(_ request: OutgoingRequest, next: RequestMiddlewareNext) async throws(NetworkError) -> HTTPResponse {
        let resolved = request.original.resolved
        guard request.method == .get, request.bodyLength == 0, resolved.streamKind == nil, resolved.downloadDestination == nil else {
            return try await next(request)
        }
        let key = Key(request)
        let (call, member) = inFlight.withLock { table -> (SharedCall, Int) in
            if let call = table[key], let member = call.join() { return (call, member) }
            let call = SharedCall()
            table[key] = call
            return (call, call.join() ?? 0)
        }
        call.startIfFirst { [self] in
            let result: Result<HTTPResponse, NetworkError>
            do throws(NetworkError) {
                result = .success(try await next(request))
            } catch {
                result = .failure(error)
            }
            self.inFlight.withLock { table in
                if table[key] === call { table[key] = nil }
            }
            return result
        }
        return try await call.result(for: member, request: request).get()
    }

    /// What makes two calls the same call.
    private struct Key: Hashable {
        let url: String
        let headers: [String]
        let clientCertificate: ClientCertificate?
        let unixSocketPath: String?
        let mockDirectory: URL?
        /// The credentials in no header (Digest, NTLM, Negotiate, SigV4) and the provider's TLS options.
        let caller: String?
        let tls: TLSOptions?

        init(_ request: OutgoingRequest) {
            url = request.url.absoluteString
            headers = request.headerList.map { "\($0.name.lowercased()):\($0.value)" }
            let resolved = request.original.resolved
            clientCertificate = resolved.options.clientCertificate
            unixSocketPath = resolved.options.unixSocketPath
            mockDirectory = resolved.mockResponsesDirectory
            caller = resolved.authentication?.callerIdentity
            tls = resolved.options.tls
        }
    }
}

/// One transfer and the callers waiting for it.
private final class SharedCall: Sendable {
    private struct State {
        var members = 0
        var nextMember = 0
        var isStarted = false
        var waiting: [Int: CheckedContinuation<Result<HTTPResponse, NetworkError>, Never>] = [:]
        var cancelled: Set<Int> = []
        var result: Result<HTTPResponse, NetworkError>?
        var task: Task<Void, Never>?
    }

    private let state = Protected(State())

    /// A new member's number, or `nil` when every member has left (the transfer is being cancelled).
    func join() -> Int? {
        state.withLock { state in
            guard state.members > 0 || !state.isStarted else { return nil }
            state.members += 1
            state.nextMember += 1
            return state.nextMember
        }
    }

    func startIfFirst(_ operation: @escaping @Sendable () async -> Result<HTTPResponse, NetworkError>) {
        state.withLock { state in
            guard !state.isStarted else { return }
            state.isStarted = true
            // Unstructured: the first caller's cancellation must not end the others' transfer.
            state.task = Task {
                let result = await operation()
                let waiting = self.state.withLock { state in
                    state.result = result
                    defer { state.waiting = [:] }
                    return state.waiting
                }
                for continuation in waiting.values { continuation.resume(returning: result) }
            }
        }
    }

    /// The shared result, or ``NetworkError/cancelled(_:)`` as soon as this member's task is cancelled.
    func result(for member: Int, request: OutgoingRequest) async -> Result<HTTPResponse, NetworkError> {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Result<HTTPResponse, NetworkError>? in
                    if let result = state.result { return result }
                    if state.cancelled.contains(member) { return .failure(Self.cancelled(request)) }
                    state.waiting[member] = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let (continuation, task) = state.withLock { state in
                state.cancelled.insert(member)
                state.members -= 1
                let task = state.members == 0 && state.result == nil ? state.task : nil
                return (state.waiting.removeValue(forKey: member), task)
            }
            continuation?.resume(returning: .failure(Self.cancelled(request)))
            task?.cancel()
        }
    }

    private static func cancelled(_ request: OutgoingRequest) -> NetworkError {
        .cancelled(.init(request: request.original.redactedDescription, reason: "it was cancelled while waiting for an identical request in flight"))
    }
}
