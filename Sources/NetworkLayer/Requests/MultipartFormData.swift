import Foundation

/// The parts of a `multipart/form-data` body, in order.
public struct MultipartFormData: Sendable {
    enum Part: Sendable {
        case text(name: String, value: String)
        case data(name: String, data: Data, filename: String?, mimeType: String?)
        case file(name: String, url: URL, filename: String?, mimeType: String?)

        var name: String {
            switch self {
            case .text(let name, _), .data(let name, _, _, _), .file(let name, _, _, _): name
            }
        }

        var mimeType: String? {
            switch self {
            case .text: nil
            case .data(_, _, _, let mimeType), .file(_, _, _, let mimeType): mimeType
            }
        }
    }

    private(set) var parts: [Part] = []

    public init() {}

    /// A text field.
    public func text(_ name: String, _ value: String) -> MultipartFormData {
        appending(.text(name: name, value: value))
    }

    /// A field of bytes, optionally presented as a file.
    public func data(_ name: String, _ data: Data, filename: String? = nil, mimeType: String? = nil) -> MultipartFormData {
        appending(.data(name: name, data: data, filename: filename, mimeType: mimeType))
    }

    /// A file read from disk while it is sent; `filename` defaults to the file's own name.
    public func file(_ name: String, at url: URL, filename: String? = nil, mimeType: String? = nil) -> MultipartFormData {
        appending(.file(name: name, url: url, filename: filename, mimeType: mimeType))
    }

    private func appending(_ part: Part) -> MultipartFormData {
        var copy = self
        copy.parts.append(part)
        return copy
    }
}
