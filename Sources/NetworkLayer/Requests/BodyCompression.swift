internal import CNetworkLayerZlib
import Foundation

/// How a request body is compressed before it is sent: the coding named in `Content-Encoding`.
/// Interceptors, `adapt(_:)` (a signature covers what is sent) and copy-as-curl see the compressed
/// body. Off by default: the server must accept the coding, and most APIs do not.
public struct BodyCompression: Sendable, Hashable, CustomStringConvertible {
    /// The `Content-Encoding` token.
    public let coding: String

    /// gzip (RFC 1952), at zlib's default level.
    public static let gzip = BodyCompression(coding: "gzip")

    public var description: String { coding }

    func compress(_ data: Data) throws(NetworkError) -> Data {
        try Self.gzip(data)
    }

    /// `data` as one gzip member. zlib's `deflateBound` is an upper bound for one call of
    /// `deflate` with `Z_FINISH`, so the output never needs to grow.
    static func gzip(_ data: Data) throws(NetworkError) -> Data {
        var stream = z_stream()
        // 15 window bits + 16: a gzip header and trailer instead of zlib's.
        guard deflateInit2_(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY,
                            ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw .invalidRequest(.init(reason: "zlib could not start compressing the body (out of memory)"))
        }
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, uLong(data.count)))
        var output = Data(count: bound)
        let result = data.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { out -> (Int32, Int) in
                stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = out.bindMemory(to: Bytef.self).baseAddress
                stream.avail_out = uInt(out.count)
                return (deflate(&stream, Z_FINISH), Int(stream.total_out))
            }
        }
        guard result.0 == Z_STREAM_END else {
            throw .invalidRequest(.init(reason: "zlib could not compress the body (deflate returned \(result.0))"))
        }
        output.count = result.1
        return output
    }
}

/// Compresses every request body held in memory of at least `minimumSize` bytes that has no
/// `Content-Encoding` yet (streamed ones go as they are). It runs before the interceptors, which sign the compressed body.
public struct BodyCompressionMiddleware: RequestMiddleware {
    public let compression: BodyCompression
    public let minimumSize: Int

    public init(_ compression: BodyCompression = .gzip, minimumSize: Int = 1_024) {
        self.compression = compression
        self.minimumSize = minimumSize
    }

    public func intercept(_ request: OutgoingRequest, next: RequestMiddlewareNext) async throws(NetworkError) -> HTTPResponse {
        guard let body = request.body, body.count >= minimumSize, request.value(forHeader: "Content-Encoding") == nil else {
            return try await next(request)
        }
        var compressed = request
        compressed.setBody(try compression.compress(body))
        compressed.setHeader("Content-Encoding", compression.coding, secret: false)
        return try await next(compressed)
    }
}
