import Foundation

extension MultipartFormData {
    /// A boundary of the shape libcurl uses: 24 dashes and 16 random hexadecimal digits.
    static func randomBoundary() -> String {
        String(repeating: "-", count: 24) + (0..<16).map { _ in String(UInt8.random(in: 0..<16), radix: 16) }.joined()
    }

    /// The form as libcurl sends it with `boundary`, file parts read from disk: mock mode's record
    /// of what would have been sent. A test compares this with what libcurl sends to a real server.
    ///
    /// - Returns: the bytes, or why not: they would exceed `limit` (checked from the file sizes
    ///   before anything is read), or a file cannot be read.
    func encoded(boundary: String, limit: Int) -> Result<Data, EncodingRefusal> {
        // From the files' sizes, so a large form is never read into memory.
        var total = 0
        for part in parts {
            switch part {
            case .text(_, let value): total += value.utf8.count
            case .data(_, let data, _, _): total += data.count
            case .file(_, let url, _, _):
                guard let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber else {
                    return .failure(.unreadable(url))
                }
                total += Int(clamping: size.int64Value)
            }
            total += 256 + boundary.utf8.count  // delimiters and part headers, generously
            if total > limit { return .failure(.tooLarge) }
        }
        var body = Data()
        body.reserveCapacity(total)
        for part in parts {
            let content: Data
            switch part {
            case .text(_, let value): content = Data(value.utf8)
            case .data(_, let data, _, _): content = data
            case .file(_, let url, _, _):
                guard let data = try? Self.read(url) else { return .failure(.unreadable(url)) }
                content = data
            }
            body.append(Data("--\(boundary)\r\n".utf8))
            body.append(Data(part.encodedHeaders.utf8))
            body.append(Data("\r\n".utf8))
            body.append(content)
            body.append(Data("\r\n".utf8))
        }
        body.append(Data("--\(boundary)--\r\n".utf8))
        guard body.count <= limit else { return .failure(.tooLarge) }
        return .success(body)
    }

    /// Through `FileHandle`: `Data(contentsOf:)` leaks a page per empty file.
    static func read(_ url: URL) throws -> Data {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        return try handle.readToEnd() ?? Data()
    }

    enum EncodingRefusal: Error {
        case tooLarge
        case unreadable(URL)
    }
}

extension MultipartFormData.Part {
    var encodedHeaders: String {
        var disposition = "Content-Disposition: form-data; name=\"\(Self.escaped(name))\""
        if let filename = effectiveFilename { disposition += "; filename=\"\(Self.escaped(filename))\"" }
        var lines = disposition + "\r\n"
        if let type = effectiveContentType { lines += "Content-Type: \(type)\r\n" }
        return lines
    }

    /// The filename libcurl sends: the given one, or a file part's own name.
    private var effectiveFilename: String? {
        switch self {
        case .text: nil
        case .data(_, _, let filename, _): filename
        case .file(_, let url, let filename, _): filename ?? url.lastPathComponent
        }
    }

    /// The content type libcurl sends: a file part's is always set (by ``CurlMime``), a data
    /// part's is the given one or guessed from its filename.
    private var effectiveContentType: String? {
        switch self {
        case .text: nil
        case .data(_, _, let filename, let mimeType): mimeType ?? filename.flatMap(Self.contentType(forFilename:))
        case .file(_, _, _, let mimeType): mimeType ?? "application/octet-stream"
        }
    }

    /// libcurl's guess from a filename's extension (its whole table).
    private static func contentType(forFilename filename: String) -> String? {
        let table = [(".gif", "image/gif"), (".jpg", "image/jpeg"), (".jpeg", "image/jpeg"), (".png", "image/png"),
                     (".svg", "image/svg+xml"), (".txt", "text/plain"), (".htm", "text/html"), (".html", "text/html"),
                     (".pdf", "application/pdf"), (".xml", "application/xml")]
        let lower = filename.lowercased()
        return table.first { lower.hasSuffix($0.0) }?.1
    }

    /// `"`, CR and LF percent-escaped, as in an HTML5 form and libcurl's form-data.
    private static func escaped(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "%22"
            case "\r": result += "%0D"
            case "\n": result += "%0A"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
