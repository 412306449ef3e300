import Foundation

/// Every way a request can fail, as one error type: `perform` throws only `NetworkError`.
/// Errors the library raises carry a ``Context`` (``context``): the request (secrets redacted),
/// the cause and the underlying error. The cases can be written without one, so a provider may
/// `throw NetworkError.unauthorizedAccess`, and `case .timeOut:` matches any context.
public enum NetworkError: Error, Sendable {
    /// A failure of your own (`.generic(code: 500)`), without ``Context``; the library never throws it.
    case generic(code: Int? = nil)
    /// The host could not be reached: no name resolution, connection refused, network unreachable.
    case reachability(Context)
    /// The request's `requestTimeout` elapsed, or the server answered 408 or 504.
    case timeOut(Context)
    /// TLS verification failed or the server's keys matched no pin. Nothing was sent.
    case invalidCertificate(Context)
    /// The response body could not be decoded into the expected type.
    case serialization(Context)
    /// The server answered 404.
    case notFound(Context)
    /// The server answered 401 or 403.
    case unauthorizedAccess(Context)
    /// A failure defined by the application, typically thrown from `parseAndValidate`. It carries no
    /// ``Context``: to keep the response, throw your own error type (it arrives as ``validation(_:)``).
    case customUser(description: String, recovery: String = "", code: Int?)
    /// The request was cancelled: its `Task` was cancelled or its ``RequestHandle`` was.
    case cancelled(Context)
    /// Mock mode is on and no mock answers the request; `filename` names every place looked in, in order.
    case mockNotFound(filename: String)
    /// The request could not be built (a malformed host, endpoint, header or parameter, a mock name
    /// leaving the mock directory), or `createHTTPHeaders()` or `adapt(_:)` threw a foreign error
    /// (``underlyingError``). Nothing was sent, except part of a streamed body
    /// (``RequestBody/stream(_:length:contentType:)``) that threw or missed its declared length.
    case invalidRequest(Context)
    /// The transfer failed otherwise (closed early, not HTTP, too many redirects): libcurl's message.
    case transport(Context)
    /// A failing status without a case of its own (400, 409, 429, 500, 503, ...):
    /// ``Context/statusCode`` and ``Context/response`` (with the first 64 KB of the body); an error
    /// body decoded as ``ServiceProvider/errorBodyType`` is read with ``serverError(as:)``.
    case apiError(Context)
    /// The request's `validator` or the provider's `parseAndValidate` threw a foreign error:
    /// ``underlyingError`` (`error.underlyingError as? MyError`), refusing ``Context/response``.
    case validation(Context)
    /// The provider's ``CircuitBreaker`` is open for the request's origin: nothing was sent.
    /// ``Context/circuitOpenUntil`` says when it lets a request through again. Not retried.
    case circuitOpen(Context)


    public static var reachability: NetworkError { .reachability(Context()) }
    public static var timeOut: NetworkError { .timeOut(Context()) }
    public static var invalidCertificate: NetworkError { .invalidCertificate(Context()) }
    public static var serialization: NetworkError { .serialization(Context()) }
    public static var notFound: NetworkError { .notFound(Context()) }
    public static var unauthorizedAccess: NetworkError { .unauthorizedAccess(Context()) }
    public static var cancelled: NetworkError { .cancelled(Context()) }
    public static var transport: NetworkError { .transport(Context()) }
    public static var circuitOpen: NetworkError { .circuitOpen(Context()) }
}
