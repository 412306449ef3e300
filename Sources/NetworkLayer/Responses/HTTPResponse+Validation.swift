import Foundation

extension HTTPResponse {
    /// Throws the ``NetworkError`` a failing status maps to (401 and 403
    /// ``NetworkError/unauthorizedAccess``, 404 ``NetworkError/notFound``, 408 and 504
    /// ``NetworkError/timeOut``, any other ``NetworkError/apiError(_:)``), carrying this response and
    /// any decoded error body; returns for a status in `acceptable`, else the request's (see
    /// ``StatusCodes``). The first step of the default `parseAndValidate`.
    public func validateStatus(acceptable: Range<Int>? = nil) throws(NetworkError) {
        try validateStatus(acceptable: acceptable.map(StatusCodes.init) ?? expectations.acceptableStatuses)
    }

    /// The same check as the `Range` overload, against a set of ranges and codes.
    public func validateStatus(acceptable: StatusCodes) throws(NetworkError) {
        guard !acceptable.contains(statusCode) else { return }
        var context = NetworkError.Context(request: requestDescription,
                                           reason: statusCode == 304 ? notModifiedReason : Self.describeAnswer(statusCode),
                                           statusCode: statusCode, response: keptForError())
        if let type = expectations.errorBodyType, !body.isEmpty,
           let serverError = try? decodeJSON(type, using: expectations.decoder) {
            context.serverError = serverError
            if let message = serverError.serverMessage {
                // The server's own words, control characters escaped: an error is printed to terminals and logs.
                context.reason = "\(Self.describeAnswer(statusCode)): \(message.escapingControlCharacters)"
            }
        }
        if statusCode == 401, let problem = unanswerableDigestChallenge {
            context.reason = "the server answered with status 401: \(problem)"
            context.unanswerableChallenge = true
        }
        switch statusCode {
        case 401, 403: throw .unauthorizedAccess(context)
        case 404: throw .notFound(context)
        case 408, 504: throw .timeOut(context)
        default: throw .apiError(context)
        }
    }

    /// Why libcurl could not answer this 401's Digest challenge, when the request had Digest
    /// credentials for this origin and every Digest challenge lacks its `nonce` (RFC 7616 §3.3):
    /// then the status alone would send the caller to check credentials that were never tried.
    private var unanswerableDigestChallenge: String? {
        guard let request = origin.request, request.isAtProviderOrigin,
              request.resolved.authentication?.challenge?.scheme == .digest,
              request.headers.value(for: "Authorization") == nil,
              Authentication.digestChallengeLacksNonce(values(forHeader: "WWW-Authenticate")) else { return nil }
        return "its Digest challenge (WWW-Authenticate) is malformed: it has no nonce, which RFC 7616 requires, "
            + "so the credentials could not be sent"
    }

    /// What a 304 means for the request that got it. RFC 9110 section 15.4.5: it answers only a
    /// conditional GET or HEAD, whose `If-None-Match` or `If-Modified-Since` names a copy the client holds.
    private var notModifiedReason: String {
        guard let request = origin.request else { return "the server answered with status 304 (Not Modified)" }
        guard request.headers.value(for: "If-None-Match") != nil || request.headers.value(for: "If-Modified-Since") != nil else {
            return "the server answered 304 Not Modified to a request that was not conditional (it sent no If-None-Match "
                + "or If-Modified-Since), so there is no copy this answer could refer to"
        }
        return "the server answered 304 Not Modified: the copy the request's If-None-Match or If-Modified-Since names is current"
    }

    /// The body decoded as JSON, by the decoder ``JSONBodyDecoding`` chooses.
    private func decodeJSON<T: Decodable>(_ type: T.Type, using decoder: JSONDecoder) throws -> T {
        try JSONBodyDecoding.decode(T.self, from: body, using: decoder, usesFastJSONDecoder: expectations.usesFastJSONDecoder)
    }

    /// Decodes the body into `type` with `decoder`, else the request's, else the provider's; throws
    /// ``NetworkError/serialization``. `Data` is the raw body, `String` the body in its charset,
    /// ``EmptyResponse`` accepts any body, other types decode from JSON (``JSONValue`` with keys as
    /// sent). A JSON failure names the coding path and the status, never the body (it may hold secrets).
    public func decode<T: Decodable>(_ type: T.Type, using decoder: JSONDecoder? = nil) throws(NetworkError) -> T {
        if T.self == Data.self, let body = body as? T { return body }
        if T.self == EmptyResponse.self, let empty = EmptyResponse() as? T { return empty }
        if T.self == String.self, let text = try text() as? T { return text }
        if T.self == DownloadedFile.self {
            guard let downloadedFile else {
                throw .serialization(.init(request: requestDescription,
                                           reason: "DownloadedFile needs a download: set the request's downloadDestination",
                                           statusCode: statusCode, response: keptForError()))
            }
            if let file = downloadedFile as? T { return file }
        }
        // A stream over the body still arriving (or, for a complete response, over its body).
        if let streaming = T.self as? any StreamingResponse.Type, let stream = streaming.init(streaming: self) as? T {
            return stream
        }
        // Untyped JSON is the body as sent: the request's decoder might rename its keys.
        let decoder = decoder ?? (T.self == JSONValue.self ? Self.plainDecoder : expectations.decoder)
        do {
            // The library's own decoder, unless `decoder` has options only Foundation's knows.
            guard let keyPath = expectations.keyPath, !keyPath.isEmpty else {
                return try decodeJSON(T.self, using: decoder)
            }
            return try KeyPathDecoding.$keyPath.withValue(keyPath) {
                try decodeJSON(KeyPathDecoding.Value<T>.self, using: decoder).value
            }
        } catch {
            throw .serialization(NetworkError.Context(
                request: requestDescription,
                reason: "\(T.self) could not be decoded from the \(body.count)-byte body (status \(statusCode)): "
                    + Self.describe(error),
                statusCode: statusCode,
                underlyingError: error,
                response: keptForError()))
        }
    }

    /// The decoder for ``JSONValue`` responses: default options, shared (it is never configured).
    private static let plainDecoder = JSONDecoder()

    /// The body as text, in the charset the `Content-Type` header names (UTF-8 by default).
    public func text() throws(NetworkError) -> String {
        let charset = Self.charset(of: value(forHeader: "Content-Type"))
        guard let encoding = charset.map(Self.encoding(named:)) ?? .utf8 else {
            throw .serialization(.init(request: requestDescription, reason: "the body's charset \"\(charset ?? "")\" is not supported",
                                       statusCode: statusCode, response: keptForError()))
        }
        guard let text = String(data: body, encoding: encoding) else {
            throw .serialization(.init(request: requestDescription,
                                       reason: "the \(body.count)-byte body is not valid \(charset ?? "UTF-8") text (status \(statusCode))",
                                       statusCode: statusCode, response: keptForError()))
        }
        return text
    }

    /// The `charset` parameter of a media type, lowercased and unquoted.
    static func charset(of contentType: String?) -> String? {
        guard let contentType else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0].lowercased() == "charset" {
                return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")).lowercased()
            }
        }
        return nil
    }

    static func encoding(named charset: String) -> String.Encoding? {
        switch charset {
        case "utf-8", "utf8": .utf8
        case "us-ascii", "ascii": .ascii
        case "iso-8859-1", "latin1", "iso_8859-1", "l1": .isoLatin1
        case "iso-8859-2", "latin2": .isoLatin2
        case "windows-1252", "cp1252": .windowsCP1252
        case "windows-1251", "cp1251": .windowsCP1251
        case "utf-16": .utf16
        case "utf-16be": .utf16BigEndian
        case "utf-16le": .utf16LittleEndian
        case "utf-32": .utf32
        case "shift_jis", "shift-jis": .shiftJIS
        case "euc-jp": .japaneseEUC
        default: nil
        }
    }

    /// A one-line account of a decoding failure: where and what, without the body's content.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return String(describing: error) }
        func path(_ codingPath: [any CodingKey]) -> String {
            var text = ""
            for key in codingPath {
                if let index = key.intValue { text += "[\(index)]" } else { text += (text.isEmpty ? "" : ".") + key.stringValue }
            }
            return text.isEmpty ? "the top level" : text
        }
        switch error {
        case .keyNotFound(let key, let context) where key is KeyPathDecoding.Key:
            let path = (context.codingPath + [key]).map(\.stringValue).joined(separator: ".")
            return "the key path \"\(path)\" is not in the body (\"\(key.stringValue)\" is missing)"
        case .keyNotFound(let key, let context):
            let parent = context.codingPath.isEmpty ? "the top level" : path(context.codingPath)
            return "the key \"\(key.stringValue)\" is missing at \(parent)"
        case .typeMismatch(let expected, let context):
            return "expected \(expected) at \(path(context.codingPath))"
        case .valueNotFound(let expected, let context):
            return "expected \(expected) but found null at \(path(context.codingPath))"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "the body is not valid JSON" : "invalid value at \(path(context.codingPath))"
        @unknown default:
            return "the body does not match the expected type"
        }
    }
}
