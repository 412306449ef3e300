import Foundation

extension NetworkError {
    /// What the library knew when the error happened.
    public struct Context: Sendable {
        /// The request, as `METHOD URL` with credentials redacted. Every error the library raises
        /// about a request has it (for one refused before its URL was built, `METHOD endpoint`);
        /// `nil` only in a context your own code made without one (`throw NetworkError.notFound`).
        public var request: String?
        /// The precise cause in words, e.g. "the server closed the connection before the body was
        /// complete". Every error the library raises has it; `nil` in a context your own code made
        /// without one.
        public var reason: String?
        /// The HTTP status of the response, when there was one.
        public var statusCode: Int?
        /// The error underneath: a `DecodingError`, a ``CurlError``, or the error your own code
        /// threw (a provider's `createHTTPHeaders()`, `adapt(_:)` or `parseAndValidate`, a
        /// request's `validator`), kept as it was: `error.underlyingError as? MyError`.
        public var underlyingError: (any Error)?
        /// The failing response's body, decoded as the request's or provider's `errorBodyType`.
        public var serverError: (any ServerErrorBody)? {
            get { serverErrorBox?.body }
            set { serverErrorBox = newValue.map(ServerErrorBox.init) }
        }
        // Two rare parts, boxed, so that an error stays small: every result, outcome and typed
        // throw on the request's hot path carries room for a `NetworkError`, and moves it whole.
        // ``serverError`` is an existential of a protocol that is not class-bound: stored inline,
        // of a size unknown to the compiler, it made this context, every error, result and outcome
        // a value copied through value witnesses. ``response`` inline made an error 400 bytes.
        private var serverErrorBox: ServerErrorBox?
        private var responseBox: ResponseBox?
        /// The response that caused the error, for every error a response caused: a failing
        /// status, a `validator` or `parseAndValidate` that refused it, a body that did not decode. Its status, headers (`WWW-Authenticate`, `Retry-After`) and the first
        /// ``HTTPResponse/errorBodyLimit`` bytes (64 KB) of its body. `nil` when no response
        /// was involved (a transport failure, a request that could not be built) and for the
        /// cases without a context (`generic`, `customUser`).
        ///
        /// ```swift
        /// catch {
        ///     let challenge = error.context?.response?.value(forHeader: "WWW-Authenticate")
        /// }
        /// ```
        ///
        /// It is the response as received, so its body and headers may hold what the server
        /// considers secret (a session cookie), and its ``HTTPResponse/url`` is raw, an API key in
        /// the query included (a next page's request needs it): the error's and the response's
        /// descriptions, `String(reflecting:)` and `dump` show the URL and headers redacted and
        /// the body by its size only.
        public var response: HTTPResponse? {
            get { responseBox?.response }
            set { responseBox = newValue.map(ResponseBox.init) }
        }

        /// Whether an ``NetworkError/invalidCertificate(_:)`` is about this client's own
        /// certificate (mutual TLS) rather than the server's: its description and suggestion say so.
        var concernsClientCertificate = false

        /// Creates a context; every part is optional.
        public init(request: String? = nil, reason: String? = nil, statusCode: Int? = nil,
                    underlyingError: (any Error)? = nil, response: HTTPResponse? = nil) {
            self.request = request
            self.reason = reason
            self.statusCode = statusCode
            self.underlyingError = underlyingError
            self.response = response
        }
    }

    /// A decoded error body, held by reference (see ``Context/serverError``).
    final class ServerErrorBox: Sendable {
        let body: any ServerErrorBody
        init(_ body: any ServerErrorBody) { self.body = body }
    }

    /// The response that caused an error, held by reference (see ``Context/response``).
    final class ResponseBox: Sendable {
        let response: HTTPResponse
        init(_ response: HTTPResponse) { self.response = response }
    }

    /// The context the library attached, or `nil` for `generic`, `customUser` and `mockNotFound`.
    public var context: Context? {
        switch self {
        case .reachability(let c), .timeOut(let c), .invalidCertificate(let c), .serialization(let c),
             .notFound(let c), .unauthorizedAccess(let c), .cancelled(let c), .invalidRequest(let c),
             .transport(let c), .apiError(let c), .validation(let c):
            return c
        case .generic, .customUser, .mockNotFound:
            return nil
        }
    }

    /// The HTTP status the error is about: the status of the response that caused it (a failing
    /// status, or the response a validation refused), or the `code` of ``generic(code:)``;
    /// `nil` when no response was involved.
    public var statusCode: Int? {
        if case .generic(let code) = self { return code }
        return context?.statusCode
    }

    /// The error underneath this one: libcurl's error, a `DecodingError`, or the error your own
    /// code threw (`error.underlyingError as? MyError`), when there is one.
    public var underlyingError: (any Error)? { context?.underlyingError }

    /// The server's error body, when the provider declares an ``ServiceProvider/errorBodyType``
    /// of this type and the failing response's body decoded as it.
    public func serverError<Body: ServerErrorBody>(as type: Body.Type) -> Body? {
        context?.serverError as? Body
    }

    /// The same error with `request` filled in where the context had none.
    func describingRequest(_ description: String) -> NetworkError {
        updatingContext { if $0.request == nil { $0.request = description } }
    }

    /// The same error with the response that caused it (and its status and request) filled in
    /// where the context had none: for errors a provider or validator threw about `response`.
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
        case .generic, .customUser, .mockNotFound: return self
        }
    }
}

extension NetworkError.Context: CustomReflectable {
    /// The context's parts that are there, by their public names and unwrapped (no
    /// `Optional(…)`), for `dump` and `print`: the boxes and internal flags stay out of sight, and
    /// a server's error body shows by its type.
    public var customMirror: Mirror {
        var children: [(label: String?, value: Any)] = []
        if let request { children.append(("request", request)) }
        if let reason { children.append(("reason", reason)) }
        if let statusCode { children.append(("statusCode", statusCode)) }
        if let underlyingError { children.append(("underlyingError", underlyingError)) }
        if let serverError { children.append(("serverError", type(of: serverError))) }
        if let response { children.append(("response", response)) }
        return Mirror(self, children: children, displayStyle: .struct)
    }
}
