import Foundation

extension MockRegistry {
    /// A method and a path (and optionally the exact query items) a mock is registered for.
    /// Paths are compared decoded, with one leading slash and no empty segments, so `/users/7/`,
    /// `users/7` and `/users/%37` are the same path.
    struct Route: Hashable, Sendable, CustomStringConvertible {
        let method: HTTPMethod
        /// Decoded, `/`-led, without empty segments (so without a trailing slash).
        let path: String
        /// The decoded query items (`name=value`), sorted; `nil` matches any query.
        let query: [String]?

        init(method: HTTPMethod, path: String, query: [String]?) {
            self.method = method
            self.path = path
            self.query = query
        }

        /// The route of a registration: `path` as the user wrote it, its query (if any) compared exactly.
        init(method: HTTPMethod, registeredPath: String) {
            let withoutFragment = registeredPath.prefix { $0 != "#" }
            if let mark = withoutFragment.firstIndex(of: "?") {
                self.init(method: method, path: Self.normalized(withoutFragment[..<mark]),
                          query: Self.items(withoutFragment[withoutFragment.index(after: mark)...]))
            } else {
                self.init(method: method, path: Self.normalized(withoutFragment), query: nil)
            }
        }

        /// The routes a request matches, most specific first: its URL path, then its endpoint's
        /// path without the provider's `basePath`; each with its exact query, then with any.
        static func candidates(for request: PreparedRequest) -> [Route] {
            let urlPath = normalized(Substring(request.url.path(percentEncoded: true)))
            var paths = [urlPath]
            let base = normalized(Substring(request.resolved.location.basePath))
            if base != "/" {
                if urlPath == base {
                    paths.append("/")
                } else if urlPath.hasPrefix(base + "/") {
                    paths.append(String(urlPath.dropFirst(base.count)))
                }
            }
            let query = items(Substring(request.url.query(percentEncoded: true) ?? ""))
            return paths.map { Route(method: request.method, path: $0, query: query) }
                + paths.map { Route(method: request.method, path: $0, query: nil) }
        }

        /// `METHOD /path[?query]`, control characters escaped (it goes into errors and logs).
        var description: String {
            HeaderFields.printable("\(method.rawValue) \(path)" + (query.map { "?" + $0.joined(separator: "&") } ?? ""))
        }

        /// The path decoded, with one leading `/` and no empty segments.
        static func normalized(_ path: Substring) -> String {
            let decoded = path.removingPercentEncoding ?? String(path)
            return "/" + decoded.split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/")
        }

        /// The query's items, each decoded, sorted (so their order does not matter).
        static func items(_ query: Substring) -> [String] {
            query.split(separator: "&", omittingEmptySubsequences: true)
                .map { $0.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0) }
                .sorted()
        }
    }
}
