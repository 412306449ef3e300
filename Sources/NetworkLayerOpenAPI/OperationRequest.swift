#if OpenAPI
import Foundation
import HTTPTypes
import NetworkLayer
import OpenAPIRuntime

/// One generated operation's request as the library runs it: the full URL under `serverURL`, the
/// generated headers, the body streamed, every status accepted and the body read as it arrives.
final class OperationRequest: BaseRequest<ByteStream> {
    /// - Parameter server: `serverURL` as ``ServerPrefixes/prefix(of:for:operationID:)`` checked it.
    init(_ request: HTTPTypes.HTTPRequest, body: HTTPBody?, server: String, operationID: String,
         provider: any ServiceProvider) throws(NetworkError) {
        let url = try Self.url(of: request, under: server, operationID: operationID)
        super.init(serviceProvider: provider, url: url)
        self.operationID = operationID
        httpMethod = HTTPMethod(rawValue: request.method.rawValue)
        additionalHeaders = Self.headers(request.headerFields)
        acceptableStatuses = StatusCodes(0..<1000)  // the Range initialiser: no existential array per call
        parser = { response in ByteStream(streaming: response) }  // what decode(ByteStream.self) returns, without its casts
        if let body {
            let length: Int? = switch body.length {
            case .known(let count): Int(exactly: count)
            case .unknown: nil
            }
            self.body = .stream(RequestChunks(body: body), length: length,
                                contentType: request.headerFields[.contentType] ?? "application/octet-stream")
        }
    }

    /// The operation's path and query after `server`, the checked prefix of its `serverURL`.
    private static func url(of request: HTTPTypes.HTTPRequest, under server: String, operationID: String) throws(NetworkError) -> URL {
        let operationPath = request.path ?? "/"
        guard operationPath.hasPrefix("/"), let url = URL(string: server + operationPath) else {
            throw refusal(of: request, operationID: operationID,
                          "and the operation's path \"\(operationPath.escapingForLog)\" do not make a valid URL")
        }
        return url
    }

    /// The error refusing a `serverURL` (`why` follows "the serverURL").
    static func refusal(of request: HTTPTypes.HTTPRequest, operationID: String, _ why: String) -> NetworkError {
        .invalidRequest(.init(request: "\(request.method.rawValue) \(operationID)", reason: "the serverURL \(why)"))
    }

    /// `serverURL`'s origin and path (no `/` at its end), what every operation's path follows;
    /// refusing a `serverURL` that could not name a server: not `http`/`https`, or with a query,
    /// a fragment or a user name (libcurl would send it as credentials to whatever host it names).
    static func serverPrefix(of serverURL: URL, for request: HTTPTypes.HTTPRequest, operationID: String) throws(NetworkError) -> String {
        func refuse(_ why: String) -> NetworkError { refusal(of: request, operationID: operationID, why) }
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
        var base = components
        base.percentEncodedPath = ""
        guard let origin = base.url?.absoluteString, URL(string: origin + path + "/") != nil else {
            throw refuse("does not make a valid URL with a path after it")
        }
        return origin + path
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

/// The `serverURL` checked last and its prefix (``OperationRequest/serverPrefix(of:for:operationID:)``):
/// a generated client sends every operation to one server, so it is checked once, not per call.
final class ServerPrefixes: Sendable {
    private let last = Protected<(url: URL, prefix: String)?>(nil)

    func prefix(of serverURL: URL, for request: HTTPTypes.HTTPRequest, operationID: String) throws(NetworkError) -> String {
        if let last = last.withLock({ $0 }), last.url == serverURL { return last.prefix }
        let prefix = try OperationRequest.serverPrefix(of: serverURL, for: request, operationID: operationID)
        last.withLock { $0 = (serverURL, prefix) }
        return prefix
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
