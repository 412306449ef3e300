import Foundation

extension RequestBody {
    func prepared(encoder: JSONEncoder, arrays: ArrayEncoding) throws(NetworkError) -> (body: PreparedBody, contentType: String?) {
        switch content {
        case .bytes(let data, let contentType):
            return (.bytes(try data.get()), contentType)
        case .file(let url, let contentType):
            let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
            guard let size = (attributes?[.size] as? NSNumber)?.int64Value,
                  attributes?[.type] as? FileAttributeType != .typeDirectory,
                  FileManager.default.isReadableFile(atPath: url.path) else {
                throw .invalidRequest(.init(reason: "the file to upload, \(url.path), does not exist or cannot be read"))
            }
            return (.file(url, size: size), contentType)
        case .multipart(let form):
            for part in form.parts {
                // A MIME type becomes a part header line: CR or LF in it would add headers.
                if let mimeType = part.mimeType { try HeaderFields.validate(name: "Content-Type", value: mimeType) }
            }
            for case .file(let name, let url, _, _) in form.parts where !FileManager.default.isReadableFile(atPath: url.path) {
                throw .invalidRequest(.init(reason: "the file of the multipart field \"\(name)\", \(url.path), does not exist or cannot be read"))
            }
            return (.multipart(form), nil)
        case .stream(let upload, let contentType):
            return (.stream(try upload.get()), contentType)
        case .encodable(let value, let explicitEncoder, let form):
            let json: Data
            do {
                json = try (explicitEncoder ?? encoder).encode(value)
            } catch {
                throw .invalidRequest(.init(reason: "the body could not be encoded: \(HTTPResponse.describe(error))",
                                            underlyingError: error))
            }
            guard form else { return (.bytes(json), "application/json") }
            let fields = try ParameterValue.fromJSON(json)
            guard case .object = fields else {
                throw .invalidRequest(.init(reason: "a form body needs a value that encodes as a JSON object (a struct or dictionary)"))
            }
            return (.bytes(Data(fields.queryString(arrays: arrays).utf8)), "application/x-www-form-urlencoded")
        }
    }
}
