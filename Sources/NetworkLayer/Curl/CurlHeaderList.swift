internal import CNetworkLayerCurl
import Foundation

/// Owns a `curl_slist` (request headers, or host overrides); freed in `deinit`, after the transfers that used it.
final class CurlHeaderList: @unchecked Sendable {
    // @unchecked Sendable: immutable after init; libcurl only reads it.
    let raw: UnsafeMutablePointer<curl_slist>?

    /// Builds the list; an empty value is sent as `Name;`, libcurl's syntax for an empty header.
    /// - Parameter suppressing: headers libcurl would add on its own that must not be sent
    ///   (`Name:` in libcurl's syntax).
    /// - Parameter adding: headers sent after `headers` (the transport's own `User-Agent` and
    ///   `Accept-Encoding`).
    init(_ headers: [(name: String, value: String)], suppressing: [String] = [],
         adding extras: [(name: String, value: String)] = []) throws(NetworkError) {
        var list: UnsafeMutablePointer<curl_slist>?
        func append(_ line: String) throws(NetworkError) {
            guard let appended = curl_slist_append(list, line) else {
                curl_slist_free_all(list)
                throw .transport(.init(reason: "libcurl could not allocate the header list"))
            }
            list = appended
        }
        for header in headers { try append(Self.line(header.name, header.value)) }
        for extra in extras { try append(Self.line(extra.name, extra.value)) }
        for name in suppressing { try append(name + ":") }
        raw = list
    }

    /// A list of plain lines (`CURLOPT_CONNECT_TO`'s `host:port:host:port`).
    init(lines: [String]) throws(NetworkError) {
        var list: UnsafeMutablePointer<curl_slist>?
        for line in lines {
            guard let appended = curl_slist_append(list, line) else {
                curl_slist_free_all(list)
                throw .transport(.init(reason: "libcurl could not allocate a list"))
            }
            list = appended
        }
        raw = list
    }

    deinit { curl_slist_free_all(raw) }

    /// `Name: value`, or `Name;` for an empty value.
    private static func line(_ name: String, _ value: String) -> String {
        guard !value.isEmpty else { return name + ";" }
        var line = name
        line.reserveCapacity(name.utf8.count + 2 + value.utf8.count)
        line += ": "
        line += value
        return line
    }

    /// The list of a request that sends no header of its own: the library's `User-Agent` and
    /// `Accept-Encoding`. Built once and shared by every such transfer (libcurl only reads a
    /// list); never freed.
    static let standard = Result { () throws(NetworkError) -> CurlHeaderList in
        try CurlHeaderList([], adding: [("User-Agent", TransferPlan.userAgent), ("Accept-Encoding", TransferPlan.acceptedEncodings)])
    }

    /// The same without `Accept-Encoding`, for a response that is not decompressed (HEAD, streams).
    static let userAgentOnly = Result { () throws(NetworkError) -> CurlHeaderList in
        try CurlHeaderList([], adding: [("User-Agent", TransferPlan.userAgent)])
    }
}
