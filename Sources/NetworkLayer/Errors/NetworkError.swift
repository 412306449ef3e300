import Foundation

/// Every way a request can fail, as one error type.
///
/// `perform` throws only `NetworkError`, and the completion handler delivers it as
/// `Result<Response, NetworkError>`. Switch on the cases you handle and let the rest fall through
/// to `localizedDescription` and `recoverySuggestion`, which always say what happened and what
/// to try.
///
/// Errors raised by the library carry a ``Context``: the request they belong to (method and URL,
/// secrets redacted), the precise cause and the underlying error (libcurl's message, a
/// `DecodingError`). Read it with ``context``. The cases can still be written without one, so a
/// provider's own validation can `throw NetworkError.unauthorizedAccess`, and a pattern such as
/// `case .timeOut:` matches whatever context the error carries.
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
    /// A failure of your own without a better case, optionally with a code (`.generic()`,
    /// `.generic(code: 500)`).
    ///
    /// It keeps the original design's shape, `generic(code: Int? = nil)`, and therefore carries
    /// no ``Context``. The library itself does not throw it: a failing status without a case of
    /// its own is ``apiError(_:)``, whose context holds the status and the response.
    case generic(code: Int? = nil)
    /// The host could not be reached: the name did not resolve, the connection was refused,
    /// or the network is unreachable.
    case reachability(Context)
    /// The request's `timeout` elapsed, or the server answered 408 or 504.
    case timeOut(Context)
    /// TLS verification failed (unknown authority, wrong host name, expired certificate) or the
    /// server's keys did not match the configured pins. Nothing was sent to the server.
    case invalidCertificate(Context)
    /// The response body could not be decoded into the expected type.
    case serialization(Context)
    /// The server answered 404.
    case notFound(Context)
    /// The server answered 401 or 403.
    case unauthorizedAccess(Context)
    /// A failure defined by the application, typically thrown from a provider's `parseAndValidate`.
    ///
    /// The original design's shape: `recovery` defaults to `""`, so
    /// `.customUser(description: "User deleted", code: 666)` works. It carries no ``Context``;
    /// to keep an error of your own type with the response, throw that error instead (it arrives
    /// as ``validation(_:)`` with it as ``underlyingError``).
    case customUser(description: String, recovery: String = "", code: Int?)
    /// The request was cancelled: its `Task` was cancelled or its ``RequestHandle`` was.
    case cancelled(Context)
    /// Mock mode is on and no mock answers the request; `filename` names every place looked in,
    /// in order (the mocks registered in code, then each file's full path).
    case mockNotFound(filename: String)
    /// The request could not be built: a malformed host, endpoint or header, an unsupported
    /// parameter value, a header set by the provider's `adapt(_:)`, a mock name that leaves the
    /// mock directory; or the provider's `createHTTPHeaders()` or `adapt(_:)` threw an error that
    /// is not a `NetworkError` (kept as ``underlyingError``). Nothing was sent for this attempt.
    ///
    /// The one exception: a body streamed from a sequence (``RequestBody/stream(_:length:contentType:)``)
    /// that threw (kept as ``underlyingError``) or produced more or fewer bytes than its declared
    /// length fails with this case after part of it may have gone; the server never gets all of it.
    case invalidRequest(Context)
    /// The transfer failed for a reason not covered above: the server closed the connection
    /// early, sent something that is not HTTP, redirected too often. The context holds
    /// libcurl's own message.
    case transport(Context)
    /// The server answered with a failing status that has no case of its own (400, 409, 422,
    /// 429, 500, 503, ...).
    ///
    /// The status is ``Context/statusCode`` (also ``statusCode``), the response (headers such as
    /// `Retry-After`, and the first 64 KB of the body) is ``Context/response``. When the body
    /// decoded as the request's `errorBodyType` or the provider's
    /// ``ServiceProvider/errorBodyType``, read it with ``serverError(as:)``.
    ///
    /// ```swift
    /// catch .apiError(let context) where context.statusCode == 429 {
    ///     let wait = context.response?.value(forHeader: "Retry-After")
    /// }
    /// ```
    case apiError(Context)
    /// Your own validation refused the response: the request's `validator` or the provider's
    /// `parseAndValidate` threw an error that is not a `NetworkError`. That error is
    /// ``underlyingError`` (`error.underlyingError as? MyError`), and the response it refused is
    /// ``Context/response``.
    case validation(Context)

    // The spellings without a context, for code that raises or compares these errors itself.

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
