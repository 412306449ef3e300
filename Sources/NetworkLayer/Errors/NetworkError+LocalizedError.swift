import Foundation

extension NetworkError: LocalizedError {
    /// What happened, for which request, and why.
    public var errorDescription: String? {
        let summary: String
        switch self {
        case .generic(let code):
            summary = code.map { "The server answered with HTTP status \($0)." } ?? "The request failed."
        case .reachability: summary = "The server could not be reached."
        case .timeOut: summary = "The request timed out."
        case .invalidCertificate(let context) where context.concernsClientCertificate:
            summary = "The client certificate could not be used."
        case .invalidCertificate: summary = "The server's certificate was not trusted."
        case .serialization: summary = "The response could not be decoded."
        case .notFound where isCacheUnavailable: summary = "Nothing in the response cache answers the request."
        case .notFound: summary = "The server found nothing at this address (404)."
        case .unauthorizedAccess: summary = "The server refused access."
        case .customUser(let description, _, _): return description
        case .cancelled: summary = "The request was cancelled."
        case .mockNotFound(let filename): return "Mock mode is on, but no mock answers the request; it looked for \(filename)."
        case .invalidRequest(let context) where context.refusedSocketCall == .close: summary = "The WebSocket was not closed."
        case .invalidRequest(let context) where context.refusedSocketCall == .send: summary = "The message was not sent."
        case .invalidRequest: summary = "The request could not be built."
        case .transport: summary = "The transfer failed."
        case .apiError(let context) where context.statusCode == 304:
            summary = "The server did not send the resource."
        case .apiError(let context):
            summary = (context.statusCode ?? 0) >= 500 ? "The server reported an error." : "The server refused the request."
        case .validation: summary = "The response was refused by its validation."
        case .circuitOpen: summary = "The request was not sent."
        }
        guard let context else { return summary }
        var text = summary
        if let reason = context.reason { text = String(summary.dropLast()) + ": " + reason + "." }
        if let request = context.request { text += " (\(request))" }
        return text
    }

    /// What to try next.
    public var recoverySuggestion: String? {
        switch self {
        case .generic(let code):
            if let code, code >= 500 { return "The server failed; try again later or check its logs." }
            return "Check the request against the server's API documentation."
        case .reachability:
            return "Check the network connection and that the host name and port are right."
        case .timeOut:
            return "Try again, or raise the request's timeout if the server is slow."
        case .invalidCertificate(let context) where context.concernsClientCertificate:
            return "Check the provider's clientCertificate: its files, their password, that the key belongs to the certificate, "
                + "and that the server trusts the CA that issued it."
        case .invalidCertificate:
            return "Check the server's certificate chain, the host name, the custom CA bundle and the pinned keys."
        case .serialization:
            return "Check that the response type matches what the server sends."
        case .notFound where isCacheUnavailable:
            return "Nothing was sent. Load it once with the network first (another cache policy, or without only-if-cached), "
                + "or handle this as being offline."
        case .notFound:
            return "Check the endpoint path and its parameters."
        case .unauthorizedAccess(let context) where context.unanswerableChallenge:
            return "Other credentials will not help: the server's operator must fix its challenge, "
                + "or the provider must use an authentication the server answers properly."
        case .unauthorizedAccess:
            return "Check the credentials the provider sends, or sign in again."
        case .customUser(_, let recovery, _):
            return recovery
        case .cancelled:
            return "Nothing to do: the request was cancelled on purpose."
        case .mockNotFound:
            return "Add the JSON file to the mock directory, set the request's mockedResponseFilename, or register a mock in code."
        case .invalidRequest(let context) where context.refusedSocketCall == .close:
            return "Nothing was sent and the socket is still open: close it again with a code and reason as the message says "
                + "(or drop it, which closes it with 1001)."
        case .invalidRequest(let context) where context.refusedSocketCall == .send:
            return "Nothing was sent: the socket is closed. Open a new one to send more."
        case .invalidRequest:
            return "Fix the request as the message says; nothing was sent."
        case .transport:
            return "Try again; if it persists, the server or a proxy in between is misbehaving."
        case .apiError(let context) where context.statusCode == 304:
            return "A 304 tells a conditional request (If-None-Match, If-Modified-Since) to use the copy it holds: if the request "
                + "sent one, accept 304 in its acceptableStatuses and use that copy; if not, a cache or proxy in between "
                + "answered for the server, or the server answers 304 wrongly."
        case .apiError(let context):
            if let status = context.statusCode, status >= 500 || status == 429 {
                return "The server failed or is busy; try again later (see its Retry-After header, if any)."
            }
            return "Read the server's message; the request may need different values."
        case .validation:
            return "Check the rule that refused the response: the error it threw is underlyingError, the response context.response."
        case .circuitOpen:
            return "Try again after context.circuitOpenUntil, or show that the service is unavailable; "
                + "the circuit breaker closes when a request succeeds."
        }
    }

    /// The precise cause in words, ``Context/reason``, when there is one.
    public var failureReason: String? { context?.reason }
}
