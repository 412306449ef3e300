import Foundation

/// `/status/<code>?body=…`: a response with exactly this body (encoded as `encoding`) and content type.
func bodyEndpoint(status: Int = 200, _ body: String, contentType: String = "application/json",
                  encoding: String = "utf-8") -> String {
    let allowed = CharacterSet.alphanumerics
    func escaped(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: allowed)! }
    return "/status/\(status)?body=\(escaped(body))&contentType=\(escaped(contentType))&encoding=\(encoding)"
}
