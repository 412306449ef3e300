internal import CNetworkLayerCurl
import Foundation

/// A provider's ``TLSOptions`` on the transfer (its own origin only: ``TransferPlan`` drops them
/// for another), checked when the request was prepared.
extension CurlTransfer {
    func configureTLS(_ tls: TLSOptions) throws(NetworkError) {
        try handle.set(CURLOPT_SSLVERSION, tls.curlSSLVersion)
        if !tls.cipherSuites.isEmpty { try handle.set(CURLOPT_SSL_CIPHER_LIST, tls.cipherSuites.joined(separator: ":")) }
        if !tls.tls13CipherSuites.isEmpty { try handle.set(CURLOPT_TLS13_CIPHERS, tls.tls13CipherSuites.joined(separator: ":")) }
        if tls.requiresOCSPStapling {
            try handle.set(CURLOPT_SSL_VERIFYSTATUS, true)
            // A resumed handshake staples nothing, which libcurl 7.88 fails; libcurl reuses a
            // connection only for a transfer checking the status alike.
            try handle.set(CURLOPT_SSL_SESSIONID_CACHE, false)
        }
    }
}

extension CurlErrorMapping {
    /// The error for a handshake that a provider's TLS options refused or could not agree on, or
    /// `nil` when the transfer had none or failed otherwise.
    static func tlsOptionsFailure(_ code: CURLcode, message: String, facts: Facts,
                                  context: (String) -> NetworkError.Context) -> NetworkError? {
        guard let tls = facts.tls else { return nil }
        switch code {
        case CURLE_SSL_INVALIDCERTSTATUS where tls.requiresOCSPStapling:
            return .invalidCertificate(context(ocspFailure(message)))
        case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CIPHER:
            return .invalidCertificate(context("the TLS handshake failed: the server offered nothing this backend's TLS options "
                                               + "allow (\(tls.requirement)); OpenSSL's reason follows"))
        case CURLE_SSL_CACERT_BADFILE:
            let path = tls.trustedCertificates?.path ?? ""
            return .invalidCertificate(context("the TLS options' trustedCertificates file \(HeaderFields.printable(path)) "
                                               + "holds no CA certificate OpenSSL can read"))
        default:
            return nil
        }
    }

    /// What libcurl's message says the stapled OCSP check found, and what the server must do.
    private static func ocspFailure(_ message: String) -> String {
        if message.contains("No OCSP response received") {
            return "the TLS options require OCSP stapling, and the server stapled no OCSP response to its certificate; "
                + "nothing was sent. The server must staple one (nginx: ssl_stapling on; Apache: SSLUseStapling on)"
        }
        if message.contains("revocation reason") {
            return "the OCSP response the server stapled says its certificate is revoked; nothing was sent. "
                + "The server needs a new certificate"
        }
        if message.contains("OCSP ID") {
            return "the OCSP response the server stapled could not be checked: the server did not send the issuer of its "
                + "certificate; nothing was sent. The server must send its certificate chain"
        }
        return "the OCSP response the server stapled was refused; nothing was sent. The server must staple a current "
            + "response, signed by its certificate's issuer, saying the certificate is good"
    }
}
