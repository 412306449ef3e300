/// The HTTP methods a ``BaseRequest`` can use.
///
/// `GET`, `HEAD` and `OPTIONS` send their `params` as the query string; `POST`, `PUT`, `PATCH` and
/// `DELETE` send them as a JSON body.
public enum HTTPMethod: String, Sendable, CaseIterable {
    case get = "GET"
    case post = "POST"
    case put = "PUT"
    case patch = "PATCH"
    case delete = "DELETE"
    case head = "HEAD"
    case options = "OPTIONS"

    /// Whether `params` travel in the query string (rather than a JSON body).
    var encodesParametersInQuery: Bool {
        switch self {
        case .get, .head, .options: true
        case .post, .put, .patch, .delete: false
        }
    }
}
