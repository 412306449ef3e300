import Foundation

extension NetworkError {
    /// What the library knew when the error happened.
    public struct Context: Sendable {
        /// The request, as `METHOD URL` with credentials redacted; `nil` when unknown.
        public var request: String?
        /// The precise cause in words, e.g. "the server closed the connection before the body was complete".
        public var reason: String?
        /// The HTTP status of the response, when there was one.
        public var statusCode: Int?
        /// The error underneath: a `DecodingError`, a ``CurlError``, an error a provider threw.
        public var underlyingError: (any Error)?
        /// The failing response's body, decoded as the provider's ``ServiceProvider/errorBodyType``.
        public var serverError: (any ServerErrorBody)?

        /// Creates a context; every part is optional.
        public init(request: String? = nil, reason: String? = nil, statusCode: Int? = nil,
                    underlyingError: (any Error)? = nil) {
            self.request = request
            self.reason = reason
            self.statusCode = statusCode
            self.underlyingError = underlyingError
        }
    }

    /// The context the library attached, or `nil` for `generic`, `customUser` and `mockNotFound`.
    public var context: Context? {
        switch self {
        case .reachability(let c), .timeOut(let c), .invalidCertificate(let c), .serialization(let c),
             .notFound(let c), .unauthorizedAccess(let c), .cancelled(let c), .invalidRequest(let c),
             .transport(let c), .apiError(let c):
            return c
        case .generic, .customUser, .mockNotFound:
            return nil
        }
    }

    /// The error underneath this one (libcurl's error, a `DecodingError`), when there is one.
    public var underlyingError: (any Error)? { context?.underlyingError }

    /// The server's error body, when the provider declares an ``ServiceProvider/errorBodyType``
    /// of this type and the failing response's body decoded as it.
    public func serverError<Body: ServerErrorBody>(as type: Body.Type) -> Body? {
        context?.serverError as? Body
    }

    /// The same error with `request` filled in where the context had none.
    func describingRequest(_ description: String) -> NetworkError {
        func filled(_ c: Context) -> Context {
            var c = c
            if c.request == nil { c.request = description }
            return c
        }
        switch self {
        case .reachability(let c): return .reachability(filled(c))
        case .timeOut(let c): return .timeOut(filled(c))
        case .invalidCertificate(let c): return .invalidCertificate(filled(c))
        case .serialization(let c): return .serialization(filled(c))
        case .notFound(let c): return .notFound(filled(c))
        case .unauthorizedAccess(let c): return .unauthorizedAccess(filled(c))
        case .cancelled(let c): return .cancelled(filled(c))
        case .invalidRequest(let c): return .invalidRequest(filled(c))
        case .transport(let c): return .transport(filled(c))
        case .apiError(let c): return .apiError(filled(c))
        case .generic, .customUser, .mockNotFound: return self
        }
    }
}
