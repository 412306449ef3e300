import Foundation

extension NetworkError {
    /// What the library knew when the error happened.
    public struct Context: Sendable {
        /// The request, as `METHOD URL` with credentials redacted; `nil` only in a context made in code.
        public var request: String?
        /// The precise cause in words; `nil` only in a context your own code made without one.
        public var reason: String?
        /// The HTTP status of the response, when there was one.
        public var statusCode: Int?
        /// The error underneath: a `DecodingError`, a ``CurlError``, or your own code's error, as it was.
        public var underlyingError: (any Error)?
        /// The failing response's body, decoded as the request's or provider's `errorBodyType`.
        public var serverError: (any ServerErrorBody)? {
            get { serverErrorBox?.body }
            set { serverErrorBox = newValue.map(ServerErrorBox.init) }
        }
        // Two rare parts, boxed, so that an error stays small: every result and typed throw on the
        // request's hot path carries room for a `NetworkError`, and moves it whole.
        private var serverErrorBox: ServerErrorBox?
        private var responseBox: ResponseBox?
        private var resumeDataBox: ResumeDataBox?

        /// Where a failed download stopped (``NetworkError/resumeData``), boxed like the response.
        public var resumeData: ResumeData? {
            get { resumeDataBox?.resumeData }
            set { resumeDataBox = newValue.map(ResumeDataBox.init) }
        }
        /// The response that caused the error, with the first ``HTTPResponse/errorBodyLimit`` bytes of
        /// its body; `nil` when no response was involved.
        /// It is the response as received: its body and headers may hold secrets and its
        /// ``HTTPResponse/url`` is raw, an API key included; the error's and the response's
        /// descriptions and `dump` show the URL and headers redacted and the body by its size only.
        public var response: HTTPResponse? {
            get { responseBox?.response }
            set { responseBox = newValue.map(ResponseBox.init) }
        }

        /// For a ``NetworkError/reachability(_:)`` error, why the host could not be reached (read
        /// it as ``NetworkError/reachabilityReason``); `nil` for other errors and when unknown.
        public var reachabilityReason: NetworkError.ReachabilityReason?

        /// For a ``NetworkError/circuitOpen(_:)`` error, when the circuit lets a request through
        /// again (now, while half-open probes are under way); `nil` for other errors.
        public var circuitOpenUntil: Date?

        /// Whether an ``NetworkError/invalidCertificate(_:)`` is about this client's own (mTLS) certificate.
        var concernsClientCertificate = false
        /// Whether an ``NetworkError/unauthorizedAccess(_:)`` is a challenge no credentials can answer.
        var unanswerableChallenge = false
        /// The call on a ``WebSocket`` that an ``NetworkError/invalidRequest(_:)`` refused (nothing
        /// was sent): its summary names the call, not a request being built.
        var refusedSocketCall: SocketCall?

        public init(request: String? = nil, reason: String? = nil, statusCode: Int? = nil,
                    underlyingError: (any Error)? = nil, response: HTTPResponse? = nil) {
            self.request = request
            self.reason = reason
            self.statusCode = statusCode
            self.underlyingError = underlyingError
            self.response = response
        }
    }

    /// A call on an open ``WebSocket``.
    enum SocketCall: UInt8, Sendable {
        case close
        case send
    }

    final class ServerErrorBox: Sendable {
        let body: any ServerErrorBody
        init(_ body: any ServerErrorBody) { self.body = body }
    }

    final class ResumeDataBox: Sendable {
        let resumeData: ResumeData
        init(_ resumeData: ResumeData) { self.resumeData = resumeData }
    }

    final class ResponseBox: Sendable {
        let response: HTTPResponse
        /// Detached: an app that keeps an error (a middleware's last failure, a body end it
        /// recorded) must not keep the call's request, whose middlewares may be what keeps it.
        init(_ response: HTTPResponse) { self.response = response.detachedFromRequest() }
    }

    /// The context the library attached, or `nil` for `generic`, `customUser` and `mockNotFound`.
    public var context: Context? {
        switch self {
        case .reachability(let c), .timeOut(let c), .invalidCertificate(let c), .serialization(let c),
             .notFound(let c), .unauthorizedAccess(let c), .cancelled(let c), .invalidRequest(let c),
             .transport(let c), .apiError(let c), .validation(let c), .circuitOpen(let c):
            return c
        case .generic, .customUser, .mockNotFound:
            return nil
        }
    }

    /// The HTTP status of the response that caused the error, or ``generic(code:)``'s `code`.
    public var statusCode: Int? {
        if case .generic(let code) = self { return code }
        return context?.statusCode
    }

    public var underlyingError: (any Error)? { context?.underlyingError }

    /// The server's error body, when it decoded as the provider's ``ServiceProvider/errorBodyType``.
    public func serverError<Body: ServerErrorBody>(as type: Body.Type) -> Body? {
        context?.serverError as? Body
    }

    /// The same error with `request` filled in where the context had none.
    func describingRequest(_ description: String) -> NetworkError {
        updatingContext { if $0.request == nil { $0.request = description } }
    }

    /// The same error with `response` (and its status and request) filled in where the context had none.
    func caused(by response: HTTPResponse) -> NetworkError {
        updatingContext { context in
            if context.response == nil { context.response = response.keptForError() }
            if context.statusCode == nil { context.statusCode = response.statusCode }
            if context.request == nil { context.request = response.requestDescription }
        }
    }

    /// The same error with its context changed by `update`; cases without a context are returned as they are.
    func updatingContext(_ update: (inout Context) -> Void) -> NetworkError {
        func updated(_ c: Context) -> Context {
            var c = c
            update(&c)
            return c
        }
        switch self {
        case .reachability(let c): return .reachability(updated(c))
        case .timeOut(let c): return .timeOut(updated(c))
        case .invalidCertificate(let c): return .invalidCertificate(updated(c))
        case .serialization(let c): return .serialization(updated(c))
        case .notFound(let c): return .notFound(updated(c))
        case .unauthorizedAccess(let c): return .unauthorizedAccess(updated(c))
        case .cancelled(let c): return .cancelled(updated(c))
        case .invalidRequest(let c): return .invalidRequest(updated(c))
        case .transport(let c): return .transport(updated(c))
        case .apiError(let c): return .apiError(updated(c))
        case .validation(let c): return .validation(updated(c))
        case .circuitOpen(let c): return .circuitOpen(updated(c))
        case .generic, .customUser, .mockNotFound: return self
        }
    }
}

extension NetworkError.Context: CustomReflectable {
    /// The context's parts that are there, unwrapped, for `dump`: a server's error body by its type only.
    public var customMirror: Mirror {
        var children: [(label: String?, value: Any)] = []
        if let request { children.append(("request", request)) }
        if let reason { children.append(("reason", reason)) }
        if let statusCode { children.append(("statusCode", statusCode)) }
        if let reachabilityReason { children.append(("reachabilityReason", reachabilityReason)) }
        if let circuitOpenUntil { children.append(("circuitOpenUntil", circuitOpenUntil)) }
        if let underlyingError { children.append(("underlyingError", underlyingError)) }
        if let serverError { children.append(("serverError", type(of: serverError))) }
        if let response { children.append(("response", response)) }
        return Mirror(self, children: children, displayStyle: .struct)
    }
}
