import Foundation

extension NetworkManager {
    /// The state of this manager's circuit for `provider`'s origin (scheme, host, port):
    /// ``CircuitBreaker/State/closed`` when it has none or has not failed.
    public func circuitState(for provider: any ServiceProvider) -> CircuitBreaker.State {
        let port = provider.portNumber.map { ":\($0)" } ?? ""
        guard let url = URL(string: "\(provider.httpScheme.rawValue)://\(provider.host)\(port)/"), let origin = Origin(url) else {
            return .closed
        }
        return health.state(of: origin)
    }
}
