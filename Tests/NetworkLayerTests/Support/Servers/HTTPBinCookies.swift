import Foundation

/// What httpbin's `/cookies` (and the redirects of `/cookies/set` and `/cookies/delete`) answers:
/// the cookies the request carried.
struct HTTPBinCookies: Decodable, Sendable {
    let cookies: [String: String]
}

/// A fresh temporary file path for a cookie store (the file is not created).
func temporaryCookieFile() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("cookies-\(UUID().uuidString.prefix(8)).txt")
}
