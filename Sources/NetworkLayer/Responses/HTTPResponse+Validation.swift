import Foundation

extension HTTPResponse {
    /// Throws the ``NetworkError`` a status outside `acceptable` maps to; returns for the others.
    ///
    /// The mapping: 401 and 403 ``NetworkError/unauthorizedAccess``, 404 ``NetworkError/notFound``,
    /// 408 and 504 ``NetworkError/timeOut``, any other ``NetworkError/generic(code:)`` with the status.
    /// This is the first step of the default `parseAndValidate`; custom providers can call it too.
    public func validateStatus(acceptable: Range<Int> = 200..<300) throws(NetworkError) {
        guard !acceptable.contains(statusCode) else { return }
        let context = NetworkError.Context(request: requestDescription,
                                           reason: "the server answered with status \(statusCode)",
                                           statusCode: statusCode)
        switch statusCode {
        case 401, 403: throw .unauthorizedAccess(context)
        case 404: throw .notFound(context)
        case 408, 504: throw .timeOut(context)
        default: throw .generic(code: statusCode)
        }
    }

    /// Decodes the body as JSON into `type`, or throws ``NetworkError/serialization``.
    ///
    /// The error names the coding path that failed (`results[0].artistName`) and the status, never
    /// the body itself (it may hold secrets). This is the second step of the default
    /// `parseAndValidate`.
    public func decode<T: Decodable>(_ type: T.Type, using decoder: JSONDecoder = JSONDecoder()) throws(NetworkError) -> T {
        do {
            return try decoder.decode(T.self, from: body)
        } catch {
            throw .serialization(NetworkError.Context(
                request: requestDescription,
                reason: "\(T.self) could not be decoded from the \(body.count)-byte body (status \(statusCode)): "
                    + Self.describe(error),
                statusCode: statusCode,
                underlyingError: error))
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
