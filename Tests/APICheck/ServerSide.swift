// Issue 25's block, phase 2: timeouts, HTTP versions, host overrides, connection limits,
// repeated request headers, any method, resumable downloads (main.swift holds phase 1:
// statuses, repeated response headers, BaseURLProvider, client certificates).

import Foundation
import NetworkLayer

struct TimedBank: ServiceProvider {
    var host: String { "api.bank.example" }
    var httpScheme: HTTPScheme { .https }
    var timeouts: Timeouts? { Timeouts(connect: .seconds(2), request: .seconds(30)) }  // idle: see below
    var httpVersion: HTTPVersion? { .http1_1 }          // .automatic (default), .http1_1, .http2PriorKnowledge
}

struct AddsAccept: RequestInterceptor {
    func adapt(_ outgoing: inout OutgoingRequest) async throws {
        outgoing.addHeader("Accept", "text/html")                        // OutgoingRequest: a repeated header
        outgoing.addHeader("Accept", "application/xhtml+xml")
    }
}

final class ArchiveDownload: BaseRequest<EmptyResponse> {
    init(to url: URL) {
        super.init(serviceProvider: TimedBank(), endpoint: "/archive.tar")
        httpMethod = HTTPMethod(rawValue: "PROPFIND")                    // any RFC 9110 token; others refused
        httpMethod = .get
        downloadDestination = url
        resumesDownloads = true                                          // a broken download continues with Range/If-Range
        interceptors = [AddsAccept()]
    }
}

func checkServerSideAPI(destination: URL) {
    Net.timeouts = Timeouts(connect: .seconds(5), request: .seconds(60), idle: .seconds(20))  // manager default; request.requestTimeout still wins
    Net.connectionLimits = ConnectionLimits(perHost: 8, total: 64, idleTimeout: .seconds(90))
    Net.hostOverrides = ["api.example.com:443": "10.0.0.7:8443"]     // connect there; TLS, pins, cookies by the name
    Net.httpVersion = .automatic
    let versions: [HTTPVersion] = [.automatic, .http1_1, .http2PriorKnowledge]
    let limits: ConnectionLimits = .unlimited
    var timeouts = Timeouts()
    timeouts.connect = .milliseconds(1500)
    timeouts.request = nil
    timeouts.idle = .seconds(10)
    let request = ArchiveDownload(to: destination)
    request.requestTimeout = .seconds(120)
    let shortLimits = ConnectionLimits(perHost: 4)
    print(versions.count, limits.perHost ?? 0, limits.total ?? 0, limits.idleTimeout ?? .zero, timeouts.connect ?? .zero,
          timeouts.request ?? Timeouts.defaultRequest, timeouts.idle ?? .zero, Net.timeouts, Net.connectionLimits,
          Timeouts(connect: nil, request: .milliseconds(3)), ConnectionLimits(idleTimeout: nil), shortLimits, request.requestTimeout,
          Net.hostOverrides, TimedBank().timeouts ?? timeouts, TimedBank().httpVersion ?? .automatic,
          request.resumesDownloads, request.httpMethod.rawValue)
    Net.timeouts = Timeouts()
    Net.connectionLimits = .unlimited
    Net.hostOverrides = [:]
}

// The ServerSide article's "A Linux service, quick start" block, as it is there, in an enum of its
// own: main.swift declares an Item and an ItemsRequest of its own.
enum LinuxService {
struct Inventory: ServiceProvider {
    var host: String { "inventory.internal" }
    var httpScheme: HTTPScheme { .http }
    var port: Int { 8080 }                              // an Int: the port it names
    var retryPolicy: RetryPolicy? { RetryPolicy() }     // 3 attempts: 408, 429, 500, 502–504, transport failures
}
struct Item: Codable, Sendable { let id: Int; let name: String }
final class ItemsRequest: BaseRequest<[Item]> {
    init() { super.init(serviceProvider: Inventory(), endpoint: "/items") }     // mock: GET/items.json
}
}

func configureLinuxService() {
    Net.isVerbose = false                                   // the text log: off in release builds already
    Net.logEntryHandler = { entry in                        // every event, redacted, as data: one line each
        guard entry.level >= .info else { return }
        var line = "request=\(entry.requestID) phase=\(entry.phase.rawValue) method=\(entry.method.rawValue) url=\(entry.url)"
        if let status = entry.statusCode { line += " status=\(status)" }   // nil when no response came (a timeout)
        if let code = entry.errorCode {                                   // a failure: why, in the entry itself
            line += " error=\(code) reason=\"\(entry.errorDescription ?? "")\""
        }
        print(line)
    }
    // A service's working directory is not its package's: give the mock files an absolute place.
    Net.mockResponsesDirectory = URL(fileURLWithPath: "/srv/inventory/MockResponses", isDirectory: true)
    print(LinuxService.ItemsRequest().endpoint)
}

// BaseRequest.timeout, released in 2.0.0 in seconds, deprecated by 3.0.0 (issue 49): still compiled,
// in a deprecated function so that warnings as errors let it through.
@available(*, deprecated)
func checkDeprecatedTimeIntervalAPI(request: BaseRequest<EmptyResponse>) {
    request.timeout = 120
    print(request.timeout)
}
