// Issue 25's block, phase 2: timeouts, HTTP versions, host overrides, connection limits,
// repeated request headers, any method, resumable downloads (main.swift holds phase 1:
// statuses, repeated response headers, BaseURLProvider, client certificates).

import Foundation
import NetworkLayer

struct TimedBank: ServiceProvider {
    var host: String { "api.bank.example" }
    var httpScheme: HTTPScheme { .https }
    var timeouts: Timeouts? { Timeouts(connect: 2, request: 30) }               // idle: see below
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
    Net.timeouts = Timeouts(connect: 5, request: 60, idle: 20)      // manager default; request.timeout still wins
    Net.connectionLimits = ConnectionLimits(perHost: 8, total: 64, idleTimeout: 90)
    Net.hostOverrides = ["api.example.com:443": "10.0.0.7:8443"]     // connect there; TLS, pins, cookies by the name
    Net.httpVersion = .automatic
    let versions: [HTTPVersion] = [.automatic, .http1_1, .http2PriorKnowledge]
    let limits: ConnectionLimits = .unlimited
    let timeouts = Timeouts()
    let request = ArchiveDownload(to: destination)
    print(versions.count, limits.perHost ?? 0, limits.total ?? 0, limits.idleTimeout ?? 0, timeouts.connect ?? 0,
          timeouts.request ?? Timeouts.defaultRequest, timeouts.idle ?? 0, Net.timeouts, Net.connectionLimits,
          Net.hostOverrides, TimedBank().timeouts ?? timeouts, TimedBank().httpVersion ?? .automatic,
          request.resumesDownloads, request.httpMethod.rawValue)
    Net.timeouts = Timeouts()
    Net.connectionLimits = .unlimited
    Net.hostOverrides = [:]
}
