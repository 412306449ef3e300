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
        func append(_ name: String, _ value: String?) throws(NetworkError) {
            guard let appended = Self.appending(name, value, to: list) else {
                curl_slist_free_all(list)
                throw .transport(.init(reason: "libcurl could not allocate the header list"))
            }
            list = appended
        }
        for header in headers { try append(header.name, header.value) }
        for extra in extras { try append(extra.name, extra.value) }
        for name in suppressing { try append(name, nil) }
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

    /// `list` with the line `Name: value` appended (`Name;` for an empty value, `Name:` for a `nil`
    /// one: not sent), written as a C string from the two strings' bytes, without a `String` of
    /// its own: every request with a header of its own pays for this. libcurl copies the line.
    private static func appending(_ name: String, _ value: String?,
                                  to list: UnsafeMutablePointer<curl_slist>?) -> UnsafeMutablePointer<curl_slist>? {
        let separator: StaticString = switch value {
        case nil: ":"
        case ""?: ";"
        default: ": "
        }
        var name = name, value = value ?? ""
        return name.withUTF8 { name in
            value.withUTF8 { value in
                let length = name.count + separator.utf8CodeUnitCount + value.count
                return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length + 1) { line in
                    var end = line.initialize(fromContentsOf: name)
                    end = line[end...].initialize(fromContentsOf: UnsafeBufferPointer(start: separator.utf8Start,
                                                                                        count: separator.utf8CodeUnitCount))
                    end = line[end...].initialize(fromContentsOf: value)
                    line[end] = 0
                    guard let start = line.baseAddress else { return nil }  // never: the capacity is at least 1
                    return start.withMemoryRebound(to: CChar.self, capacity: length + 1) { curl_slist_append(list, $0) }
                }
            }
        }
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
