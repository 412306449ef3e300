internal import CNetworkLayerCurl
import Foundation

/// A provider's ``TLSOptions`` on the transfer (its own origin only: ``TransferPlan`` drops them
/// for another), checked when the request was prepared.
extension CurlTransfer {
    func configureTLS(_ tls: TLSOptions) throws(NetworkError) {
        try handle.set(CURLOPT_SSLVERSION, tls.curlSSLVersion)
        if !tls.cipherSuites.isEmpty { try handle.set(CURLOPT_SSL_CIPHER_LIST, tls.cipherSuites.joined(separator: ":")) }
        if !tls.tls13CipherSuites.isEmpty { try handle.set(CURLOPT_TLS13_CIPHERS, tls.tls13CipherSuites.joined(separator: ":")) }
    }
}

extension CurlErrorMapping {
    /// The error for a handshake that a provider's TLS options refused or could not agree on, or
    /// `nil` when the transfer had none or failed otherwise.
    static func tlsOptionsFailure(_ code: CURLcode, facts: Facts, context: (String) -> NetworkError.Context) -> NetworkError? {
        guard let tls = facts.tls else { return nil }
        switch code {
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
}
