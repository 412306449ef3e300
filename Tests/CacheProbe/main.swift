import Foundation

// The response cache's disk tier in a process of its own, for "two processes share one cache
// directory" (DiskCacheProcessTests). The engine is internal until phase 2 wires it into the
// manager, so this probe reaches it with @testable import, which a debug build (the one
// `swift build --build-tests` and `make test` make) allows; in a release build it only says so.
//
// `CacheProbe <mode> <directory> <limit> <arguments>`:
//   store <directory> <limit> <count>                 stores count responses (URL i, body "body of <URL>")
//   read  <directory> <limit> <count>                 looks the count URLs up: how many are served, and correct
//   churn <directory> <limit> <worker> <iterations>   stores, looks up and invalidates 40 shared URLs at random
// and prints one line of JSON: {"stored", "served", "wrong"}, "wrong" counting served bodies that
// are not their URL's.
//   net   <directory> <limit> <url>                   one GET of url through Net with Net.cache = .disk(directory, limit),
// printing {"status": "hit" | "miss" | ..., "body": the body as text}.

#if DEBUG
@testable import NetworkLayer

struct Report {
    var stored = 0
    var served = 0
    var wrong = 0
}

func url(_ index: Int) -> String { "http://example.com/shared/\(index)" }

func prefix(_ url: String) -> Data { Data("body of \(url) ".utf8) }

let arguments = CommandLine.arguments

/// A provider for a full URL: its rules are the defaults.
struct ProbeProvider: ServiceProvider {
    var host: String
    var httpScheme: HTTPScheme = .http
    var port: Int?
}

if arguments.count == 5, arguments[1] == "net", let limit = Int(arguments[3]), let url = URL(string: arguments[4]), let host = url.host {
    Net.isVerbose = false
    Net.cache = .disk(directory: URL(fileURLWithPath: arguments[2], isDirectory: true), limit: limit)
    let request = BaseRequest<String>(serviceProvider: ProbeProvider(host: host, port: url.port), url: url)
    let semaphore = DispatchSemaphore(value: 0)
    Task.detached {
        do {
            let (body, response) = try await Net.performWithResponse(request)
            let report = ["status": response.cacheStatus.map { "\($0)" } ?? "none", "body": body]
            print(String(decoding: try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys]), as: UTF8.self))
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            exit(1)
        }
        semaphore.signal()
    }
    semaphore.wait()
    Net.cache = .none   // the cache's decoded responses go before exit (see the end of this file)
    exit(0)
}

guard arguments.count >= 5, let limit = Int(arguments[3]), let count = Int(arguments[4]) else {
    FileHandle.standardError.write(Data("usage: CacheProbe store|read|churn <directory> <limit> <count> [iterations]\n".utf8))
    exit(2)
}
let directory = URL(fileURLWithPath: arguments[2], isDirectory: true)
var cache: HTTPCache!
do {
    cache = HTTPCache(tiers: [try DiskCacheStorage(directory: directory, limit: limit)])
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
let now = Date()
var report = Report()

@MainActor func store(_ url: String, padding: Int, worker: Int) {
    let body = prefix(url) + Data(repeating: UInt8(truncatingIfNeeded: worker), count: padding)
    let outcome = cache.store(statusCode: 200, headers: [("Cache-Control", "max-age=3600"), ("X-Worker", String(worker))],
                              body: body, for: CacheRequest(method: "GET", url: url), requestTime: now, responseTime: now)
    if outcome == .stored { report.stored += 1 }
}

@MainActor func read(_ url: String) {
    guard let served = cache.lookup(CacheRequest(method: "GET", url: url), policy: .useProtocol, now: now).served else { return }
    report.served += 1
    if !served.body.starts(with: prefix(url)) { report.wrong += 1 }
}

extension CacheLookup {
    var served: CachedResponse? {
        if case .fresh(let response) = self { return response }
        if case .stale(let response, _) = self { return response }
        return nil
    }
}

switch arguments[1] {
case "store":
    for index in 0..<count { store(url(index), padding: index % 700, worker: 0) }
case "read":
    for index in 0..<count { read(url(index)) }
case "churn":
    let iterations = arguments.count > 5 ? Int(arguments[5]) ?? 0 : 0
    var random = SystemRandomNumberGenerator()
    for iteration in 0..<iterations {
        let target = url(Int.random(in: 0..<40, using: &random))
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<4: store(target, padding: Int.random(in: 0..<4000, using: &random), worker: count)
        case 4..<9: read(target)
        default: _ = cache.store(statusCode: 204, headers: [], body: Data(), for: CacheRequest(method: "POST", url: target),
                                 requestTime: now, responseTime: now)
        }
        if iteration % 20 == 0 { _ = try? DiskCacheStorage(directory: directory, limit: limit) }
    }
default:
    FileHandle.standardError.write(Data("unknown mode \(arguments[1])\n".utf8))
    exit(2)
}
// The engine, and with it the responses a disk cache keeps decoded, goes before the process
// exits: under the address sanitizer, a `Data` still held at exit is reported as leaked (its
// storage is referenced only through Data's tagged representation, which the leak check cannot
// read as a pointer), and the probe's exit status would say it failed.
cache = nil
print("{\"stored\": \(report.stored), \"served\": \(report.served), \"wrong\": \(report.wrong)}")
#else
print("CacheProbe reaches the cache engine through @testable import: build it in debug (swift build --build-tests)")
exit(1)
#endif
