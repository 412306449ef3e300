import Foundation

/// Every way a request can fail, as one error type.
///
/// `perform` throws only `NetworkError`, and completion handlers get `Result<Response, NetworkError>`.
/// Switch on the cases you handle; `localizedDescription` and `recoverySuggestion` always say
/// what happened and what to try.
///
/// Errors the library raises carry a ``Context`` (``context``): the request (secrets redacted),
/// the cause and the underlying error. The cases can be written without one, so a provider may
/// `throw NetworkError.unauthorizedAccess`, and `case .timeOut:` matches any context.
///
/// ```swift
/// do {
///     let value = try await Net.perform(request)
/// } catch .unauthorizedAccess {
///     showLogin()
/// } catch {
///     print(error.localizedDescription, error.recoverySuggestion ?? "")
/// }
/// ```
public enum NetworkError: Error, Sendable {
    /// A failure of your own without a better case, optionally with a code (`.generic(code: 500)`).
    /// It carries no ``Context``; the library never throws it (a failing status is ``apiError(_:)``).
    case generic(code: Int? = nil)
    /// The host could not be reached: the name did not resolve, the connection was refused,
    /// or the network is unreachable.
    case reachability(Context)
    /// The request's `timeout` elapsed, or the server answered 408 or 504.
    case timeOut(Context)
    /// TLS verification failed or the server's keys matched no pin. Nothing was sent.
    case invalidCertificate(Context)
    /// The response body could not be decoded into the expected type.
    case serialization(Context)
    /// The server answered 404.
    case notFound(Context)
    /// The server answered 401 or 403.
    case unauthorizedAccess(Context)
    /// A failure defined by the application, typically thrown from `parseAndValidate`
    /// (`.customUser(description: "User deleted", code: 666)`). It carries no ``Context``: to keep
    /// the response, throw an error of your own type (it arrives as ``validation(_:)``).
    case customUser(description: String, recovery: String = "", code: Int?)
    /// The request was cancelled: its `Task` was cancelled or its ``RequestHandle`` was.
    case cancelled(Context)
    /// Mock mode is on and no mock answers the request; `filename` names every place looked in,
    /// in order (the mocks registered in code, then each file's full path).
    case mockNotFound(filename: String)
    /// The request could not be built (a malformed host, endpoint, header or parameter, a header
    /// set by `adapt(_:)`, a mock name leaving the mock directory), or `createHTTPHeaders()` or
    /// `adapt(_:)` threw a foreign error (``underlyingError``). Nothing was sent for this attempt,
    /// except for a body streamed from a sequence
    /// (``RequestBody/stream(_:length:contentType:)``) that threw or missed its declared length:
    /// part of it may have gone, never all.
    case invalidRequest(Context)
    /// The transfer failed for another reason (the connection closed early, a reply that is not
    /// HTTP, too many redirects); the context holds libcurl's message.
    case transport(Context)
    /// A failing status without a case of its own (400, 409, 429, 500, 503, ...).
    ///
    /// ``Context/statusCode`` is the status, ``Context/response`` the response (with the first
    /// 64 KB of the body); an error body decoded as `errorBodyType` (or the provider's
    /// ``ServiceProvider/errorBodyType``) is read with ``serverError(as:)``.
    ///
    /// ```swift
    /// catch .apiError(let context) where context.statusCode == 429 {
    ///     let wait = context.response?.value(forHeader: "Retry-After")
    /// }
    /// ```
    case apiError(Context)
    /// The request's `validator` or the provider's `parseAndValidate` threw a foreign error:
    /// ``underlyingError`` (`error.underlyingError as? MyError`), refusing ``Context/response``.
    case validation(Context)


    /// The host could not be reached (no further context).
    public static var reachability: NetworkError { .reachability(Context()) }
    /// The request timed out (no further context).
    public static var timeOut: NetworkError { .timeOut(Context()) }
    /// The server's certificate was refused (no further context).
    public static var invalidCertificate: NetworkError { .invalidCertificate(Context()) }
    /// The body could not be decoded (no further context).
    public static var serialization: NetworkError { .serialization(Context()) }
    /// The resource was not found (no further context).
    public static var notFound: NetworkError { .notFound(Context()) }
    /// Access was refused (no further context).
    public static var unauthorizedAccess: NetworkError { .unauthorizedAccess(Context()) }
    /// The request was cancelled (no further context).
    public static var cancelled: NetworkError { .cancelled(Context()) }
    /// The transfer failed (no further context), e.g. for a mock: `.failure(.transport)`.
    public static var transport: NetworkError { .transport(Context()) }
}
