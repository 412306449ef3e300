internal import CNetworkLayerCurl
import Foundation

extension CurlErrorMapping {
    /// The TLS alerts a server sends about the client's certificate, as OpenSSL words them in
    /// libcurl's message, with what each means. With TLS 1.3 the client's handshake is over when
    /// the server judges the certificate, so libcurl reports the alert as a failed read or send;
    /// without this, it would read as a broken connection.
    private static let clientCertificateAlerts: [(alert: String, meaning: String)] = [
        ("alert unknown ca", "it does not trust the CA that issued it"),
        ("alert bad certificate", "it found the certificate bad"),
        ("alert unsupported certificate", "it does not accept this kind of certificate (key usage or type)"),
        ("alert certificate revoked", "the certificate is revoked"),
        ("alert certificate expired", "the certificate expired, or is not valid yet"),
        ("alert certificate unknown", "it could not accept the certificate"),
    ]

    /// The error for a handshake the server ended because of the client certificate: none given
    /// where one is required, or one it refused. `nil` for any other failure.
    ///
    /// A server that closes at once after its alert can lose it: the request the client sends
    /// meanwhile is answered with a reset, which discards the alert unread. A connection that
    /// broke before any byte of a response, right after a handshake in which a certificate was
    /// presented, is therefore ``NetworkError/invalidCertificate(_:)`` saying the server may have
    /// refused it: never `.transport`, whose advice is to try again (and which a retry policy
    /// retries), since the same certificate would be refused again.
    static func clientCertificateRefusal(_ code: CURLcode, message: String, facts: Facts, curl: CurlError,
                                         request: PreparedRequest) -> NetworkError? {
        let presented = facts.presentedClientCertificate
        let reason: String
        if presented, facts.receivedNothing, code == CURLE_SEND_ERROR || code == CURLE_RECV_ERROR,
           !message.localizedCaseInsensitiveContains("alert") {
            reason = "the server may have refused the client certificate: it closed the connection right after the TLS "
                + "handshake in which the certificate was sent, before any response, as a server that does not trust it does"
        } else if message.localizedCaseInsensitiveContains("alert certificate required") {
            reason = presented
                ? "the server requires a client certificate and took the one presented as none"
                : "the server requires a client certificate, and this request presented none: set the provider's clientCertificate"
        } else if presented,
                  let match = clientCertificateAlerts.first(where: { message.localizedCaseInsensitiveContains($0.alert) }) {
            reason = "the server refused the client certificate: \(match.meaning)"
        } else {
            return nil
        }
        var context = NetworkError.Context(request: request.redactedDescription, reason: "\(reason) (\(message))", underlyingError: curl)
        context.concernsClientCertificate = true
        return .invalidCertificate(context)
    }
}
