import Foundation

extension RequestBody: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// What the body is and its size where known, never its content (a JSON body's password
    /// field): `RequestBody.json(NewUser)`, `RequestBody.data(27 bytes, application/json)`.
    public var description: String {
        let text = switch content {
        case .bytes(.success(let data), let contentType): "RequestBody.data(\(data.count) bytes, \(contentType))"
        case .bytes(.failure(let error), _): "RequestBody(not encodable: \(error.errorDescription ?? "\(error)"))"
        case .file(let url, let contentType): "RequestBody.file(\(url.path), \(contentType))"
        case .multipart(let form): "RequestBody.multipart(\(form))"
        case .encodable(let value, _, let form): "RequestBody.\(form ? "form" : "json")(\(type(of: value)))"
        case .stream(.success(let upload), let contentType):
            "RequestBody.stream(\(upload.length.map { "\($0) bytes" } ?? "length unknown"), \(contentType))"
        case .stream(.failure(let error), _): "RequestBody(invalid stream: \(error.errorDescription ?? "\(error)"))"
        }
        return HeaderFields.printable(text)
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror { Mirror(self, children: ["description": description], displayStyle: .struct) }
}
