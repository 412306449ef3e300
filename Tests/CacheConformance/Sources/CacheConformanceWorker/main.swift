// The cache-tests worker of `make cache-conformance`: reads one JSON request per line on stdin,
// performs it through NetworkLayer with a memory cache (redirects not followed: the suite's client
// follows them, through the proxy), and writes one JSON response per line on stdout. proxy.py, the
// reverse proxy the suite's client talks to, starts it and exchanges these lines with it.
//
// `@testable` for `headerLines` (the response's header lines as received, repeated ones included,
// which the suite checks) and `isCacheUnavailable` (an `only-if-cached` request the cache cannot
// answer, which a cache answers with 504), and `Protected`. CT_VERBOSE=1 turns on the library's log
// (on stderr, which run.sh keeps in .build-conformance/proxy.log).
import Foundation
@testable import NetworkLayer

struct Backend: ServiceProvider {
    var host: String
    var httpScheme: HTTPScheme = .http
    var port: Int?
}

let output = Protected(FileHandle.standardOutput)
func reply(_ object: [String: Any]) {
    guard let data = try? JSONSerialization.data(withJSONObject: object) else { return }
    output.withLock { $0.write(data + Data("\n".utf8)) }
}

Net.isVerbose = ProcessInfo.processInfo.environment["CT_VERBOSE"] == "1"
Net.cache = .memory(limit: 256 << 20)

func handle(_ line: String) async {
    guard let job = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
          let id = job["id"] as? Int, let urlText = job["url"] as? String, let url = URL(string: urlText), let host = url.host
    else { return }
    let request = BaseRequest<Data>(serviceProvider: Backend(host: host, port: url.port), url: url)
    request.httpMethod = HTTPMethod(rawValue: job["method"] as? String ?? "GET")
    var headers: [String: String] = [:]
    for pair in job["headers"] as? [[String]] ?? [] where pair.count == 2 {
        headers[pair[0]] = headers[pair[0]].map { $0 + ", " + pair[1] } ?? pair[1]
    }
    request.additionalHeaders = headers
    if let body = job["body"] as? String, let data = Data(base64Encoded: body), !data.isEmpty {
        request.body = .data(data, contentType: headers.first { $0.key.lowercased() == "content-type" }?.value ?? "application/octet-stream")
    }
    request.acceptableStatusCodes = 0..<1000
    request.redirectPolicy = RedirectPolicy.none
    request.requestTimeout = .seconds(30)
    do {
        let (body, response) = try await Net.performWithResponse(request)
        reply(["id": id, "status": response.statusCode, "headers": response.headerLines.map { [$0.name, $0.value] },
               "body": body.base64EncodedString(), "cache": response.cacheStatus.map { "\($0)" } ?? "none"])
    } catch {
        if error.isCacheUnavailable {
            reply(["id": id, "status": 504, "headers": [] as [[String]], "body": "", "cache": "unavailable"])
        } else {
            reply(["id": id, "error": "\(error)"])
        }
    }
}

let semaphore = DispatchSemaphore(value: 0)
Task.detached {
    await withTaskGroup(of: Void.self) { group in
        while let line = readLine() {
            group.addTask { await handle(line) }
        }
    }
    semaphore.signal()
}
semaphore.wait()
