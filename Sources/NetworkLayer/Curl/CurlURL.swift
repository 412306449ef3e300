internal import CNetworkLayerCurl
import Foundation

/// A URL as libcurl's own parser (the `CURLU` API) reads it, so that what the redirect rules check
/// is where libcurl connects: two parsers reading a `Location` as two hosts is how credentials
/// leak. The next hop sends its canonical ``text``. Owns its `CURLU` handle.
final class CurlURL {
    private let handle: OpaquePointer

    /// Parses `text`, resolved against `base` when it is relative. `nil` when libcurl refuses
    /// either (not a URL, a space or control character, a port beyond 65535, …).
    ///
    /// Any scheme is accepted here (`file:`, `ftp:`), so that the caller can say which it
    /// refuses; only the parsing is libcurl's.
    init?(_ text: String, relativeTo base: String? = nil) {
        // A C string ends at NUL: libcurl would read only the part before it. libcurl allocates
        // the handle with the functions its initialisation installs: it must come first (a step
        // before the wire parses an origin before the process's first transfer).
        guard !text.utf8.contains(0), !(base?.utf8.contains(0) ?? false), (try? CurlGlobal.initialise()) != nil,
              let handle = curl_url() else { return nil }
        let flags = UInt32(CURLU_NON_SUPPORT_SCHEME)
        guard base.map({ curl_url_set(handle, CURLUPART_URL, $0, flags) == CURLUE_OK }) ?? true,
              curl_url_set(handle, CURLUPART_URL, text, flags) == CURLUE_OK
        else {
            curl_url_cleanup(handle)
            return nil
        }
        // Stored only once it is certain to be kept: from here on deinit frees it.
        self.handle = handle
    }

    deinit {
        curl_url_cleanup(handle)
    }

    /// Drops the user name, password and login options (`user:password;options@`); `false` when
    /// libcurl cannot.
    func removeUserInformation() -> Bool {
        [CURLUPART_USER, CURLUPART_PASSWORD, CURLUPART_OPTIONS].allSatisfy { curl_url_set(handle, $0, nil, 0) == CURLUE_OK }
    }

    /// The whole URL, normalised by libcurl (scheme and host as it will use them, relative
    /// references resolved, dot segments removed).
    var text: String? { part(CURLUPART_URL) }

    /// The scheme, lowercased.
    var scheme: String? { part(CURLUPART_SCHEME) }

    /// The host as libcurl will connect to it: an international name in its punycode (ASCII)
    /// form when libcurl can convert it, an IPv6 address in brackets without its zone.
    var host: String? {
        part(CURLUPART_HOST, flags: UInt32(CURLU_PUNYCODE)) ?? part(CURLUPART_HOST)
    }

    /// The IPv6 zone (`eth0` in `[fe80::1%25eth0]`), if any.
    var zoneID: String? { part(CURLUPART_ZONEID) }

    /// The port, the scheme's default when the URL names none; `nil` when libcurl knows no
    /// default for the scheme.
    var port: Int? { part(CURLUPART_PORT, flags: UInt32(CURLU_DEFAULT_PORT)).flatMap { Int($0) } }

    /// One part, or `nil` when the URL has none (or libcurl cannot give it).
    private func part(_ part: CURLUPart, flags: UInt32 = 0) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        let code = curl_url_get(handle, part, &value, flags)
        // Freed whatever the outcome: up to 8.14, libcurl leaves its copy of the part in `value`
        // when a conversion fails (a host it cannot write in punycode). Later it leaves `nil`.
        defer { if let value { curl_free(value) } }
        guard code == CURLUE_OK, let value else { return nil }
        return String(validatingCString: value)
    }
}
