internal import CNetworkLayerCurl

/// Whether the pin verifier may be handed the TLS structures libcurl gives it.
///
/// The verifier (Sources/CNetworkLayerCurl/pinning.c) reads the `SSL_CTX *` libcurl passes to
/// `CURLOPT_SSL_CTX_FUNCTION` as one of the OpenSSL this library links: true only when libcurl runs
/// on that same OpenSSL. Another TLS library or OpenSSL version hands over another shape, so the
/// versions are compared at run time and pinning fails closed when they differ.
enum TLSBackendCheck {
    /// The verdict for this process: `nil` when pins can be checked, else why not.
    static let problem: String? = problem(curlTLS: CurlEngine.tlsBackend,
                                          linkedRuntime: UInt64(nl_openssl_runtime_version()),
                                          linkedHeader: UInt64(nl_openssl_header_version()))

    /// Why pins cannot be checked, or `nil` when they can.
    /// - Parameters:
    ///   - curlTLS: libcurl's `ssl_version`, e.g. `OpenSSL/3.0.19`.
    ///   - linkedRuntime: `OpenSSL_version_num()` of the OpenSSL this library loaded.
    ///   - linkedHeader: `OPENSSL_VERSION_NUMBER` this library was compiled with.
    static func problem(curlTLS: String, linkedRuntime: UInt64, linkedHeader: UInt64) -> String? {
        let linked = Version(openSSLNumber: linkedRuntime)
        guard curlTLS.hasPrefix("OpenSSL/"), let curl = Version(text: curlTLS.dropFirst("OpenSSL/".count)) else {
            return "this libcurl's TLS backend (\(curlTLS)) is not OpenSSL, so pins cannot be checked during the handshake"
        }
        guard curl == linked else {
            return "this libcurl runs on OpenSSL \(curl), but NetworkLayer is linked against OpenSSL \(linked), "
                + "so pins cannot be checked safely during the handshake"
        }
        let header = Version(openSSLNumber: linkedHeader)
        guard header.major == linked.major, linked.major >= 3 || header.minor == linked.minor else {
            return "NetworkLayer was built against OpenSSL \(header) but runs on OpenSSL \(linked), "
                + "whose structures may differ, so pins cannot be checked safely during the handshake"
        }
        return nil
    }

    /// An OpenSSL version: major, minor, patch.
    struct Version: Equatable, CustomStringConvertible {
        let major: UInt64
        let minor: UInt64
        let patch: UInt64

        /// From `OPENSSL_VERSION_NUMBER`'s layout: `0xMNN00PP0` (3.x) or `0xMNNFFPPS` (1.x).
        init(openSSLNumber number: UInt64) {
            major = (number >> 28) & 0xF
            minor = (number >> 20) & 0xFF
            patch = major >= 3 ? (number >> 4) & 0xFF : (number >> 12) & 0xFF
        }

        /// From `3.0.19` (anything after the third number, such as a letter or `-fips`, is ignored;
        /// a 1.x letter release `1.1.1w` compares by its numbers only). `nil` when not a version.
        init?(text: Substring) {
            let numbers = text.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false).map { $0.prefix { $0.isASCII && $0.isNumber } }
            guard numbers.count >= 2, numbers.allSatisfy({ !$0.isEmpty && $0.count <= 9 }),
                  let major = UInt64(numbers[0]), let minor = UInt64(numbers[1]) else { return nil }
            self.major = major
            self.minor = minor
            patch = numbers.count > 2 ? UInt64(numbers[2]) ?? 0 : 0
        }

        var description: String { "\(major).\(minor).\(patch)" }
    }
}
