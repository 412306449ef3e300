internal import CNetworkLayerCurl
import Foundation

/// Turns the way a libcurl transfer ended into a ``NetworkError`` with a sentence a user can act
/// on: the one place where a `CURLcode` becomes an error.
///
/// A code alone does not always say what happened (`CURLE_WRITE_ERROR` is a full disk or a size
/// limit), so the transfer hands over what it observed as ``Facts``.
enum CurlErrorMapping {
    struct Facts {
        /// Why the library's own checks refused the response headers, when they did.
        var malformedResponse: String?
        /// The pinned host and the pins its certificate chain presented, when none of them matched.
        var pinMismatch: (host: String, presentedPins: [String])?
        /// The host and the reason, when the TLS options' `serverTrust` callback refused its chain.
        var trustRejection: (host: String, reason: String)?
        var maximumResponseSize: Int?
        /// Whether the body went over ``maximumResponseSize`` (libcurl then reports a write error).
        var exceededMaximumSize = false
        /// The limit a compressed body broke, with its decoded and compressed sizes at that moment.
        var decompressionBomb: (limit: DecompressionLimit, decoded: Int64, compressed: Int64)?
        var diskWriteFailure: String?
        var connected = true
        var connectTimeout: TimeInterval?
        var idleTimeout: TimeInterval?
        var unixSocketPath: String?
        /// The `errno` of the failed `connect` (to the Unix socket, the server or the proxy); 0 when unknown.
        var osErrno: Int32 = 0
        /// The proxy the transfer goes through (`scheme://host:port`, no credentials), if any.
        var proxy: String?
        /// The status the proxy answered `CONNECT` with; 0 for none.
        var proxyConnectStatus = 0
        var proxyCertificateFailed = false
        var presentedClientCertificate = false
        var receivedNothing = false
        /// Whether libcurl failed for lack of memory while reading the response head: a line of it
        /// longer than libcurl's fixed limit (`CURL_MAX_HTTP_HEADER`).
        var headLineTooLong = false
        /// Whether libcurl refused a line starting with white space right after the status line.
        var foldAfterStatusLine = false
        var tls: TLSOptions?
        var networkInterface: String?
        /// The DNS over HTTPS resolver names were resolved with, if any.
        var dnsOverHTTPS: URL?
    }

    /// The error for a transfer that ended with `code` (or, whatever the code, with a malformed
    /// response or a body over the size limit).
    static func error(for code: CURLcode, message: String, facts: Facts, plan: TransferPlan) -> NetworkError {
        let curl = CurlError(code: Int(code.rawValue), message: message)
        func context(_ reason: String) -> NetworkError.Context {
            .init(request: plan.redactedDescription, reason: "\(reason) (\(message))", underlyingError: curl)
        }
        if let malformed = facts.malformedResponse {
            return .transport(.init(request: plan.redactedDescription, reason: "the server's response is malformed: \(malformed)"))
        }
        if facts.foldAfterStatusLine {
            return .transport(.init(request: plan.redactedDescription,
                                    reason: "the server's response is malformed: \(ResponseHeaderBlock.foldContinuingNothing)",
                                    underlyingError: curl))
        }
        // Inside an HTTPS proxy's tunnel, a refused handshake surfaces as a connect error.
        if code == CURLE_PEER_FAILED_VERIFICATION || code == CURLE_SSL_CONNECT_ERROR, let mismatch = facts.pinMismatch {
            return .invalidCertificate(.init(
                request: plan.redactedDescription,
                reason: "no public key in the certificate chain of \(mismatch.host) matches its pins; the server presented "
                    + mismatch.presentedPins.joined(separator: ", ") + ". Nothing was sent",
                underlyingError: curl))
        }
        if code == CURLE_PEER_FAILED_VERIFICATION || code == CURLE_SSL_CONNECT_ERROR, let rejection = facts.trustRejection {
            return .invalidCertificate(.init(
                request: plan.redactedDescription,
                reason: "the TLS options' serverTrust callback refused the certificate chain of \(rejection.host): "
                    + HeaderFields.printable(rejection.reason) + ". Nothing was sent",
                underlyingError: curl))
        }
        if facts.exceededMaximumSize || code == CURLE_FILESIZE_EXCEEDED, let limit = facts.maximumResponseSize {
            return .transport(.init(
                request: plan.redactedDescription,
                reason: "the response body is larger than the limit of \(limit) bytes (counted after decompression)",
                underlyingError: curl))
        }
        if let bomb = facts.decompressionBomb, let ratio = bomb.limit.ratio {
            return .transport(.init(
                request: plan.redactedDescription,
                reason: "the compressed response expanded more than \(ratio) times (\(bomb.compressed) bytes received became "
                    + "over \(bomb.decoded) bytes decoded), beyond the decompression limit; if this body is legitimate, "
                    + "raise the request's or the manager's decompressionLimit",
                underlyingError: curl))
        }
        if code == CURLE_WRITE_ERROR, let failure = facts.diskWriteFailure {
            return diskWriteFailure(failure, plan: plan)
        }
        if let path = facts.unixSocketPath, code == CURLE_COULDNT_CONNECT {
            return .unreachable(context(unixSocketFailure(path, errno: facts.osErrno)),
                                facts.osErrno == ECONNREFUSED ? .connectionRefused : .other)
        }
        if let proxy = facts.proxy, let error = proxyFailure(code, proxy: proxy, facts: facts, plan: plan, context: context) {
            return error
        }
        if let refusal = clientCertificateRefusal(code, message: message, facts: facts, curl: curl, plan: plan) {
            return refusal
        }
        if let failure = tlsOptionsFailure(code, message: message, facts: facts, context: context) { return failure }
        if code == CURLE_INTERFACE_FAILED, let name = facts.networkInterface {
            return .unreachable(context("the network interface \"\(HeaderFields.printable(name))\" could not be used: "
                                         + "no such interface or address on this machine"), .other)
        }
        if let resolver = facts.dnsOverHTTPS, let failure = dnsOverHTTPSFailure(code, resolver: resolver, connected: facts.connected,
                                                                                 message: message, plan: plan, context: context) {
            return failure
        }
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return .unreachable(context("the host name could not be resolved"), .hostNotFound)
        case CURLE_COULDNT_CONNECT:
            let reason = NetworkError.ReachabilityReason(connectErrno: facts.osErrno)
            switch facts.osErrno {
            case ECONNREFUSED: return .unreachable(context("the connection was refused"), reason)
            case ENETUNREACH: return .unreachable(context("the network is unreachable"), reason)
            case EHOSTUNREACH: return .unreachable(context("the host is unreachable (no route to it)"), reason)
            default: return .unreachable(context("the connection was refused or the network is unreachable"), reason)
            }
        // The connect timeout, unless what was left of the request's own ran out first.
        case CURLE_OPERATION_TIMEDOUT where !facts.connected && (facts.connectTimeout ?? .infinity) < plan.timeout:
            return .timeOut(context("could not connect within the connect timeout of \(facts.connectTimeout?.compactText ?? "") s"))
        case CURLE_OPERATION_TIMEDOUT where facts.idleTimeout != nil && message.contains("too slow"):
            // libcurl's low-speed limit: less than 1 byte per second for the idle time.
            return .timeOut(context("no data for \(Int((facts.idleTimeout ?? 0).rounded(.up))) s (the idle timeout)"))
        case CURLE_OPERATION_TIMEDOUT where !facts.connected:
            return .timeOut(context("the server did not accept the connection within the timeout of \(plan.statedTimeout.compactText) s"))
        case CURLE_OPERATION_TIMEDOUT:
            // The request's own timeout: a redirect hop runs on what is left of it.
            return .timeOut(context("no complete answer within the timeout of \(plan.statedTimeout.compactText) s"))
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_INVALIDCERTSTATUS,
             CURLE_SSL_CERTPROBLEM:
            return .invalidCertificate(context("the server's certificate failed verification"))
        case CURLE_SSL_CONNECT_ERROR:
            return .transport(context("the TLS handshake failed"))
        case CURLE_UNSUPPORTED_PROTOCOL:
            // Redirects are checked before they are followed, so this is an HTTP/0.9 answer or worse.
            return .transport(context("the server's answer is not valid HTTP"))
        case CURLE_PARTIAL_FILE:
            return .transport(context("the server closed the connection before the body was complete"))
        case CURLE_GOT_NOTHING:
            return .transport(context("the server closed the connection without answering"))
        case CURLE_RECV_ERROR where message.localizedCaseInsensitiveContains("chunk"):
            return .transport(context("the server sent a malformed chunked body"))
        case CURLE_RECV_ERROR where message.localizedCaseInsensitiveContains("too large"):
            return .transport(context("the response headers are larger than libcurl accepts (300 KB)"))
        case CURLE_SEND_ERROR where message.localizedCaseInsensitiveContains("connection died"):
            // libcurl re-sent the request on fresh connections, and each closed unanswered.
            return .transport(context("the server closed the connection without answering, every time it was asked"))
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR:
            return .transport(context("the connection broke (reset by the server or the network)"))
        case CURLE_OUT_OF_MEMORY where facts.headLineTooLong:
            // libcurl's message ("Out of memory") is not what happened: left out.
            return .transport(.init(request: plan.redactedDescription,
                                    reason: "a response header line is longer than libcurl accepts (\(headLineLimit / 1024) KB), so the "
                                        + "response was refused; the limit is built into libcurl: the server must send shorter headers "
                                        + "(a cookie or token that grew is the usual cause)",
                                    underlyingError: curl))
        case CURLE_OUT_OF_MEMORY:
            return .transport(context("libcurl ran out of memory, or a trailer line was longer than its \(headLineLimit / 1024) KB limit"))
        case CURLE_WEIRD_SERVER_REPLY:
            return .transport(context("the server's answer is not valid HTTP"))
        case CURLE_BAD_CONTENT_ENCODING:
            return .transport(context("the response's compressed body is corrupt"))
        case CURLE_HTTP2, CURLE_HTTP2_STREAM:
            return .transport(context("the HTTP/2 stream failed"))
        case CURLE_URL_MALFORMAT:
            return .invalidRequest(context("libcurl could not parse the URL"))
        default:
            return .transport(context("libcurl reported error \(code.rawValue)"))
        }
    }

    /// The longest line of a response head libcurl accepts (`CURL_MAX_HTTP_HEADER`, fixed when it is built).
    static let headLineLimit = 100 * 1024

    /// Why a Unix socket could not be connected, from the `errno` of the failed `connect`.
    private static func unixSocketFailure(_ path: String, errno: Int32) -> String {
        let shown = HeaderFields.printable(path)
        switch errno {
        case ENOENT: return "there is no Unix socket at \(shown)"
        case ECONNREFUSED: return "nothing is listening on the Unix socket \(shown)"
        case EACCES, EPERM: return "permission to connect to the Unix socket \(shown) was denied"
        case ENOTSOCK, ENOTDIR: return "\(shown) is not a Unix socket"
        case 0: return "the Unix socket \(shown) could not be connected"
        default: return "the Unix socket \(shown) could not be connected: \(String(cString: strerror(errno)))"
        }
    }

    /// The error for a failure the proxy caused, naming the proxy; `nil` when it is the origin's.
    private static func proxyFailure(_ code: CURLcode, proxy: String, facts: Facts, plan: TransferPlan,
                                     context: (String) -> NetworkError.Context) -> NetworkError? {
        // A CONNECT answered 401 asks for credentials too.
        if facts.proxyConnectStatus == 407 || facts.proxyConnectStatus == 401 {
            return proxyAuthenticationRequired(proxy: proxy, status: facts.proxyConnectStatus, plan: plan)
        }
        if facts.proxyConnectStatus >= 300 {
            let target = plan.origin.url.host.map { "\($0):\(plan.origin.url.port ?? 443)" } ?? "the server"
            return .unreachable(context("the proxy \(proxy) refused to open a tunnel to \(target) (it answered \(facts.proxyConnectStatus))"),
                                .other)
        }
        switch code {
        case CURLE_COULDNT_RESOLVE_PROXY:
            return .unreachable(context("the proxy \(proxy) could not be found: its host name did not resolve"), .hostNotFound)
        case CURLE_COULDNT_CONNECT:
            return .unreachable(context("the proxy \(proxy) refused the connection or cannot be reached"),
                                NetworkError.ReachabilityReason(connectErrno: facts.osErrno))
        case CURLE_PROXY:
            return .unreachable(context("the proxy \(proxy) failed to connect to the server"), .other)
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_CERTPROBLEM:
            guard facts.proxyCertificateFailed else { return nil }
            return .invalidCertificate(context("the certificate of the proxy \(proxy) failed verification; nothing was sent"))
        default:
            return nil
        }
    }

    /// The error for a proxy that demands credentials, or refused them (`407`, or `401` to a `CONNECT`).
    static func proxyAuthenticationRequired(proxy: String, status: Int, plan: TransferPlan) -> NetworkError {
        let answer = status == 407 ? "407 Proxy Authentication Required" : "it answered \(status)"
        return .unauthorizedAccess(.init(request: plan.redactedDescription,
                                  reason: "the proxy \(proxy) demands authentication (\(answer)): "
                                      + "its credentials are missing or were refused; give them in ProxyConfiguration.http"))
    }

    static let diskWriteFailurePrefix = "the download could not be written to disk: "

    /// The error for a download that could not be written to its file, for the system's `reason`.
    static func diskWriteFailure(_ reason: String, plan: TransferPlan) -> NetworkError {
        .transport(.init(request: plan.redactedDescription, reason: diskWriteFailurePrefix + reason))
    }
}

extension CurlErrorMapping {
    /// How a DNS over HTTPS resolver is named: its origin only, as its path or query may hold an
    /// account's token.
    static func origin(of resolver: URL) -> String {
        let host = resolver.host ?? ""
        return "https://" + (host.contains(":") ? "[\(host)]" : host) + (resolver.port.map { ":\($0)" } ?? "")
    }

    /// A name the DNS over HTTPS resolver did not resolve, or not in time.
    static func dnsOverHTTPSFailure(_ code: CURLcode, resolver: URL, connected: Bool, message: String, plan: TransferPlan,
                                    context: (String) -> NetworkError.Context) -> NetworkError? {
        let host = plan.origin.url.host ?? "the host"
        let origin = origin(of: resolver)
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST:
            return .unreachable(context("\(host) could not be resolved through the DNS over HTTPS resolver \(origin): the resolver "
                                        + "could not be reached, its certificate is not trusted (the provider's CA bundle, else the "
                                        + "manager's customCABundle), or it answered no usable address; check dnsOverHTTPS"), .hostNotFound)
        case CURLE_OUT_OF_MEMORY where !connected:
            // libcurl 7.88 reports an answer it decoded without an address (a CNAME alone) so.
            return .unreachable(context("the DNS over HTTPS resolver \(origin) answered no address for \(host): "
                                        + "\(host) could not be resolved through it; check dnsOverHTTPS"), .hostNotFound)
        case CURLE_OPERATION_TIMEDOUT where message.contains("Resolving"):
            return .timeOut(context("the DNS over HTTPS resolver \(origin) did not resolve \(host) within the timeout of "
                                    + "\(plan.statedTimeout.compactText) s; check that it answers, or set another dnsOverHTTPS"))
        default:
            return nil
        }
    }
}
