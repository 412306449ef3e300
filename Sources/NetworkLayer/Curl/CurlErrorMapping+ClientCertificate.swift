internal import CNetworkLayerCurl
import Foundation

extension CurlErrorMapping {
    /// The TLS alerts a server sends about the client's certificate, as OpenSSL words them. Under
    /// TLS 1.3 libcurl reports one as a failed read or send, which would read as a broken connection.
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
    /// A reset can discard the alert unread, so a connection that broke before any response byte,
    /// right after presenting a certificate, is ``NetworkError/invalidCertificate(_:)`` too: never
    /// `.transport`, which a retry policy would retry with the same refused certificate.
    static func clientCertificateRefusal(_ code: CURLcode, message: String, facts: Facts, curl: CurlError,
                                         plan: TransferPlan) -> NetworkError? {
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
        var context = NetworkError.Context(request: plan.redactedDescription, reason: "\(reason) (\(message))", underlyingError: curl)
        context.concernsClientCertificate = true
        return .invalidCertificate(context)
    }
}
