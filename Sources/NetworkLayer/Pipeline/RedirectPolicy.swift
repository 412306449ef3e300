import Foundation

/// Which redirects a request follows: the request's, else the provider's, else
/// ``NetworkManager/redirectPolicy`` (default ``follow(maximum:)`` with 10).
///
/// Whatever the policy, only `http` and `https` targets are followed, at most 10 hops per
/// request, 301/302 turn a `POST` into a `GET` and 303 anything but `HEAD`, a hop to another
/// origin leaves every credential and secret header behind, and no hop takes the user information
/// (`user:password@`) a `Location` carries.
public enum RedirectPolicy: Sendable {
    /// Follow up to `maximum` redirects (0 … 10); one more fails with ``NetworkError/transport(_:)``.
    case follow(maximum: Int = 10)
    /// Follow none: a 3xx is the response, and validation decides (add the status to the
    /// acceptable ones to read it).
    case none
    /// Follow redirects within the request's origin; a hop to another origin ends the request
    /// with that 3xx as the response.
    case sameOrigin
    /// Ask: `true` follows the redirect, `false` makes the 3xx the response. Called at most 10
    /// times per request, on the thread that runs the request.
    case custom(@Sendable (Redirect) -> Bool)

    /// The most redirects any policy follows.
    public static let maximumRedirects = 10

    var limit: Int {
        if case .follow(let maximum) = self { return min(max(maximum, 0), Self.maximumRedirects) }
        return Self.maximumRedirects
    }
}

/// A redirect a server asked for, as ``RedirectPolicy/custom(_:)`` sees it.
public struct Redirect: Sendable {
    /// The URL that answered with the redirect.
    public let from: URL
    /// Where it points, resolved against `from`.
    public let to: URL
    /// 301, 302, 303, 307 or 308.
    public let statusCode: Int
}
