internal import CCurl
import Foundation

/// Owns a `curl_slist` of request headers; freed in `deinit`, after the transfer that used it.
final class CurlHeaderList: @unchecked Sendable {
    // @unchecked Sendable: immutable after init; libcurl only reads it.
    let raw: UnsafeMutablePointer<curl_slist>?

    /// Builds the list; an empty value is sent as `Name;`, libcurl's syntax for an empty header.
    /// - Parameter suppressing: headers libcurl would add on its own that must not be sent
    ///   (`Name:` in libcurl's syntax).
    /// - Parameter adding: a header sent after `headers` (the transport's own `User-Agent`).
    init(_ headers: [(name: String, value: String)], suppressing: [String] = [],
         adding extra: (name: String, value: String)? = nil) throws(NetworkError) {
        var list: UnsafeMutablePointer<curl_slist>?
        var lines = headers.map { $0.value.isEmpty ? "\($0.name);" : "\($0.name): \($0.value)" }
        if let extra { lines.append("\(extra.name): \(extra.value)") }
        lines += suppressing.map { "\($0):" }
        for line in lines {
            guard let appended = curl_slist_append(list, line) else {
                curl_slist_free_all(list)
                throw .transport(.init(reason: "libcurl could not allocate the header list"))
            }
            list = appended
        }
        raw = list
    }

    deinit { curl_slist_free_all(raw) }
}
