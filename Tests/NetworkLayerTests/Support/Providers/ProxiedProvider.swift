import Foundation
@testable import NetworkLayer

/// A loopback backend with a proxy of its own (`nil`: the manager's).
struct ProxiedProvider: ServiceProvider {
    var host = "127.0.0.1"
    var httpScheme: HTTPScheme = .http
    var port: Int?
    var proxy: ProxyConfiguration?
}
