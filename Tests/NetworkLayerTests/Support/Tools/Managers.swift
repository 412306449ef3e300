import Foundation
@testable import NetworkLayer

/// A manager of the test's own, so settings such as mock mode never reach tests running in parallel.
/// `log` collects the text log (verbose only with one); `entries` the structured entries.
func makeManager(mocks: URL? = nil, log: LogCollector? = nil, entries: LogEntryCollector? = nil) -> NetworkManager {
    let net = NetworkManager()
    net.isVerbose = log != nil
    if let log {
        net.logHandler = { entry in log.append(entry) }
    }
    if let entries {
        net.logEntryHandler = { entry in entries.append(entry) }
    }
    if let mocks {
        net.areMocksEnabled = true
        net.mockResponsesDirectory = mocks
    }
    return net
}

/// A manager trusting the test CA, with its own pinning settings.
func makeTLSManager() -> NetworkManager {
    let net = makeManager()
    net.customCABundle = certificatesDirectory.appendingPathComponent("TestCABundle.pem")
    net.certificatesDirectory = certificatesDirectory
    return net
}
