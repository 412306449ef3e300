import Foundation

/// Writes the verbose log of one request. Only created when logging is on.
struct NetworkLog: Sendable {
    let settings: Settings

    func request(_ request: PreparedRequest, mocked: Bool) {}
    func response(_ response: HTTPResponse, to request: PreparedRequest, elapsed: Duration) {}
    func failure(_ error: NetworkError, of request: String, elapsed: Duration, mocked: Bool) {}
}
