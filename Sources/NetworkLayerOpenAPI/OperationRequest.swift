#if OpenAPI
import Foundation
import HTTPTypes
import NetworkLayer
import OpenAPIRuntime

/// One generated operation's request as the library runs it: the full URL under `serverURL`, the
/// generated headers, the body streamed, every status accepted and the body read as it arrives.
final class OperationRequest: BaseRequest<ByteStream> {
    init(_ request: HTTPTypes.HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
         provider: any ServiceProvider) throws(NetworkError) {
        let url = try Self.url(of: request, under: baseURL, operationID: operationID)
        super.init(serviceProvider: provider, url: url)
        self.operationID = operationID
        httpMethod = HTTPMethod(rawValue: request.method.rawValue)
        additionalHeaders = Self.headers(request.headerFields)
        acceptableStatuses = StatusCodes(0...999)
        parser = { response in try response.decode(ByteStream.self) }
        if let body {
            let length: Int? = switch body.length {
            case .known(let count): Int(exactly: count)
            case .unknown: nil
            }
            self.body = .stream(RequestChunks(body: body), length: length,
                                contentType: request.headerFields[.contentType] ?? "application/octet-stream")
        }
    }

    /// `serverURL`'s path joined with the operation's path and query, refusing a `serverURL` that
    /// could not name a server: not `http`/`https`, or with a query, a fragment or a user name
    /// (libcurl would send it as credentials to whatever host it names).
    private static func url(of request: HTTPTypes.HTTPRequest, under serverURL: URL, operationID: String) throws(NetworkError) -> URL {
        func refuse(_ why: String) -> NetworkError {
            .invalidRequest(.init(request: "\(request.method.rawValue) \(operationID)",
                                  reason: "the serverURL \(why)"))
        }
        guard let components = URLComponents(url: serverURL, resolvingAgainstBaseURL: true) else {
            throw refuse("is not a valid URL")
        }
        let scheme = components.scheme?.lowercased()
        guard scheme == "http" || scheme == "https" else {
            throw refuse("is not http or https: \"\(String(describing: components.scheme ?? "").escapingForLog)\" (give the client an http or https server)")
        }
        guard components.host?.isEmpty == false else { throw refuse("names no host") }
        guard components.percentEncodedQuery == nil else { throw refuse("has a query: the operation's path and query follow the server's path") }
        guard components.percentEncodedFragment == nil else { throw refuse("has a fragment") }
        guard components.percentEncodedUser == nil, components.percentEncodedPassword == nil else {
            throw refuse("has a user name or password: give credentials to the provider's authentication")
        }
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        let operationPath = request.path ?? "/"
        guard operationPath.hasPrefix("/") else { throw refuse("cannot be joined with the operation's path \"\(operationPath.escapingForLog)\"") }
        var base = components
        base.percentEncodedPath = ""
        guard let origin = base.url?.absoluteString, let url = URL(string: origin + path + operationPath) else {
            throw refuse("and the operation's path \"\(operationPath.escapingForLog)\" do not make a valid URL")
        }
        return url
    }

    /// The generated headers by name; a name given more than once is joined as HTTP allows
    /// (`, `, or `; ` for `Cookie`). The body's framing is left to the library.
    private static func headers(_ fields: HTTPFields) -> [String: String] {
        var headers: [String: String] = [:]
        var names: [String: String] = [:]
        for field in fields where field.name != .contentLength && field.name != .transferEncoding {
            let key = field.name.canonicalName
            if let name = names[key], let existing = headers[name] {
                headers[name] = existing + (field.name == .cookie ? "; " : ", ") + field.value
            } else {
                names[key] = field.name.rawName
                headers[field.name.rawName] = field.value
            }
        }
        return headers
    }
}

/// An `HTTPBody`'s chunks as ``RequestBody/stream(_:length:contentType:)`` takes them.
struct RequestChunks: AsyncSequence, Sendable {
    typealias Element = Data
    let body: HTTPBody

    func makeAsyncIterator() -> Iterator { Iterator(base: body.makeAsyncIterator()) }

    struct Iterator: AsyncIteratorProtocol {
        var base: HTTPBody.Iterator

        mutating func next() async throws -> Data? {
            try await base.next().map { Data($0) }
        }
    }
}

extension String {
    var escapingForLog: String {
        unicodeScalars.map { $0.properties.generalCategory == .control ? $0.escaped(asASCII: true) : String($0) }.joined()
    }
}
#endif
