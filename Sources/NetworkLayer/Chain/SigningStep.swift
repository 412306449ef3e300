import Foundation

/// AWS Signature V4, after the cache and before the network middlewares: each hop to the provider's
/// origin without an `Authorization` of its own is signed as sent, libcurl's own headers written into
/// it first so that the plan sends them as signed. Each signature joins ``ResolvedRequest/signatures``,
/// which the log and errors scrub (a server may echo it).
struct SigningStep: CallStep {
    let signer: AWSSigV4

    nonisolated(nonsending) func run(_ exchange: Exchange, rest: CallChain,
                                     sending hop: inout PreparedRequest?) async throws(NetworkError) -> HTTPResponse {
        var sent = exchange
        sent.request = Self.signed(exchange.request)
        return try await rest.proceed(sent, sending: &hop)
    }

    /// `hop` as it is sent: signed when its provider signs with SigV4, it goes to the provider's
    /// origin and has no `Authorization` of its own; a hop signed before (then changed by a network
    /// middleware) is signed again at its first signature's time. Itself when it is not signed.
    static func signed(_ hop: PreparedRequest) -> PreparedRequest {
        guard let signer = hop.resolved.authentication?.sigV4 else { return hop }
        let presigned = hop.withoutSignature(of: signer)
        let request = presigned?.request ?? hop
        guard request.isAtProviderOrigin, request.headers.value(for: "Authorization") == nil else { return hop }
        let library = request.libraryHeaders
        let payloadHash: String?
        switch request.sentBody {
        case nil: payloadHash = AWSSigV4.hexDigest([])
        case .bytes(let data)?: payloadHash = SHA256Digest.of(data)?.hex
        case .file?, .multipart?, .stream?: payloadHash = nil
        }
        let signature = signer.headers(method: request.method.rawValue, urlText: request.urlText, headers: request.headers + library,
                                       payloadHash: payloadHash, date: presigned?.date ?? Date(),
                                       sendsPathAsIs: request.resolved.options.table.sendsPathAsIs)
        if let authorization = signature.last?.value {
            request.resolved.signatures.withLock { signatures in
                if signatures.count >= 16 { signatures.removeFirst() }  // a long retry loop keeps its latest
                signatures.append(authorization)
                if let value = authorization.utf8.firstByteRange(of: "Signature=".utf8) { signatures.append(String(authorization[value.upperBound...])) }
            }
        }
        var secrets = request.secrets
        if signer.sessionToken != nil { secrets.insert(header: "X-Amz-Security-Token") }
        let signed = PreparedRequest(method: request.method, urlText: request.urlText, headers: request.headers + library + signature,
                                     body: request.body, timeout: request.timeout, resolved: request.resolved, secrets: secrets,
                                     adaptedHeaderNames: request.adaptedHeaderNames, redirectedFrom: request.redirectedFrom,
                                     isAtProviderOrigin: request.isAtProviderOrigin)
        signed.shareParsedURL(of: request)
        return signed
    }
}
