import Foundation

extension MultipartFormData: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The parts by name and size, never a value (a form's password field is an ordinary text
    /// part): `MultipartFormData(user: 3 bytes, photo: file /tmp/beach.jpg, image/jpeg)`.
    public var description: String {
        let text = parts.map { part -> String in
            switch part {
            case .text(let name, let value): "\(name): \(value.utf8.count) bytes"
            case .data(let name, let data, let filename, let mimeType):
                "\(name): \(data.count) bytes" + (filename.map { " as \($0)" } ?? "") + (mimeType.map { ", \($0)" } ?? "")
            case .file(let name, let url, let filename, let mimeType):
                "\(name): file \(url.path)" + (filename.map { " as \($0)" } ?? "") + (mimeType.map { ", \($0)" } ?? "")
            }
        }
        return HeaderFields.printable("MultipartFormData(\(text.joined(separator: ", ")))")
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror { Mirror(self, children: ["description": description], displayStyle: .struct) }
}
