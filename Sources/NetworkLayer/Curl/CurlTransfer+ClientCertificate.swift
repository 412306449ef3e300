internal import CNetworkLayerCurl
import Foundation

/// The client certificate a transfer presents (mutual TLS), handed to libcurl as the bytes that
/// were checked (blobs, copied by libcurl), never as paths it would read again.
extension CurlTransfer {
    func configureClientCertificate(_ identity: ClientIdentity) throws(NetworkError) {
        try handle.set(CURLOPT_SSLCERT_BLOB, blob: identity.certificate)
        switch identity.kind {
        case .pem:
            try handle.set(CURLOPT_SSLCERTTYPE, "PEM")
            if let key = identity.key {
                try handle.set(CURLOPT_SSLKEY_BLOB, blob: key)
                try handle.set(CURLOPT_SSLKEYTYPE, "PEM")
            }
        case .pkcs12:
            try handle.set(CURLOPT_SSLCERTTYPE, "P12")
        }
        if let password = identity.password { try handle.set(CURLOPT_KEYPASSWD, password) }
    }
}
