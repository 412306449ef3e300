internal import CNetworkLayerCurl
import Foundation

/// Owns a libcurl MIME structure built from a ``MultipartFormData``; freed in `deinit`, after the
/// transfer that sends it. libcurl chooses a random boundary and streams file parts from disk.
final class CurlMime {
    let raw: OpaquePointer

    init(_ form: MultipartFormData, for handle: CurlEasyHandle) throws(NetworkError) {
        guard let mime = curl_mime_init(handle.raw) else {
            throw .transport(.init(reason: "libcurl could not create the multipart body"))
        }
        raw = mime
        for part in form.parts {
            guard let field = curl_mime_addpart(mime) else {
                throw .transport(.init(reason: "libcurl could not add the multipart field \"\(part.name)\""))
            }
            try check(curl_mime_name(field, part.name), part)
            switch part {
            case .text(_, let value):
                try check(curl_mime_data(field, value, Int(CURL_ZERO_TERMINATED)), part)
            case .data(_, let data, let filename, let mimeType):
                // libcurl copies the bytes. An empty part still needs a valid pointer.
                let code = data.isEmpty ? curl_mime_data(field, "", 0) : data.withUnsafeBytes { bytes in
                    curl_mime_data(field, bytes.bindMemory(to: CChar.self).baseAddress, bytes.count)
                }
                try check(code, part)
                if let filename { try check(curl_mime_filename(field, filename), part) }
                if let mimeType { try check(curl_mime_type(field, mimeType), part) }
            case .file(_, let url, let filename, let mimeType):
                // Sets the file name to the file's own; an explicit one replaces it.
                try check(curl_mime_filedata(field, url.path), part)
                if let filename { try check(curl_mime_filename(field, filename), part) }
                try check(curl_mime_type(field, mimeType ?? "application/octet-stream"), part)
            }
        }
    }

    deinit { curl_mime_free(raw) }

    private func check(_ code: CURLcode, _ part: MultipartFormData.Part) throws(NetworkError) {
        guard code == CURLE_OK else {
            throw .invalidRequest(.init(reason: "the multipart field \"\(part.name)\" could not be built: "
                                        + String(cString: curl_easy_strerror(code))))
        }
    }
}
