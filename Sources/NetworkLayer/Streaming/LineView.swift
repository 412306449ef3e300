import Foundation

/// One line of a streamed body as ``ByteStream/forEachLine(isolation:_:)`` and
/// ``JSONLines/forEachLine(isolation:_:)`` lend it: a view of the bytes it arrived in, valid only
/// inside the closure (the compiler refuses to let it or its span out).
public struct LineView: ~Escapable {
    let line: UnsafeRawBufferPointer
    /// The line's number in the body, from 1 (blank lines counted).
    public let number: Int
    let decoder: Unmanaged<JSONDecoder>
    let usesFastJSONDecoder: Bool

    @_lifetime(immortal)
    init(_ line: UnsafeRawBufferPointer, number: Int, decoder: Unmanaged<JSONDecoder>, usesFastJSONDecoder: Bool) {
        self.line = line
        self.number = number
        self.decoder = decoder
        self.usesFastJSONDecoder = usesFastJSONDecoder
    }

    /// The line's bytes, without its LF or CRLF, not checked as UTF-8.
    public var bytes: RawSpan {
        @_lifetime(copy self)
        get { _overrideLifetime(RawSpan(_unsafeBytes: line), copying: self) }
    }

    /// The line as a `String` (made now; invalid UTF-8 repaired with U+FFFD), as ``ByteStream/lines`` gives it.
    public var string: String { String(decoding: line, as: UTF8.self) }

    /// Whether the line is exactly `text`, compared as bytes (no string is made).
    public func equals(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { $0.count == line.count && $0.elementsEqual(line) }
    }

    /// Decodes the line as JSON with `decoder`, else the request's, straight from the bytes.
    ///
    /// - Throws: ``NetworkError/serialization(_:)`` naming the line's number, never quoting it.
    public func decode<T: Decodable>(_ type: T.Type, using decoder: JSONDecoder? = nil) throws(NetworkError) -> T {
        let data = line.baseAddress.map {
            Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: $0), count: line.count, deallocator: .none)
        } ?? Data()
        do {
            return try JSONBodyDecoding.decode(T.self, from: data, using: decoder ?? self.decoder.takeUnretainedValue(),
                                               usesFastJSONDecoder: usesFastJSONDecoder)
        } catch {
            throw .serialization(.init(reason: StreamParseFailure.undecodableLine(
                line: number, type: "\(T.self)", reason: HTTPResponse.describe(error)).reason, underlyingError: error))
        }
    }
}

extension ByteStream {
    /// Reads the body as lines lent as ``LineView``s, split as ``lines`` splits them: no string and,
    /// in the steady state, no allocation per line.
    ///
    /// ```swift
    /// try await stream.forEachLine { line in
    ///     if line.equals("[DONE]") { return }
    ///     total += try line.decode(Delta.self).tokens
    /// }
    /// ```
    ///
    /// - Throws: the ``NetworkError`` that ended the body (``NetworkError/transport(_:)`` for a line
    ///   over 16 MB), or what `body` threw: the stream is then cancelled. Throw to stop early.
    public func forEachLine(isolation: isolated (any Actor)? = #isolation,
                            _ body: (borrowing LineView) throws -> Void) async throws {
        try await readLines(of: self.body, skippingBlank: false, decoder: response.expectations.decoder,
                            usesFastJSONDecoder: response.expectations.usesFastJSONDecoder, isolation: isolation, body)
    }
}

extension JSONLines {
    /// Reads the NDJSON body as lines lent as ``LineView``s, blank lines skipped as the loop skips
    /// them; decode what you keep with ``LineView/decode(_:using:)``.
    ///
    /// - Throws: as ``ByteStream/forEachLine(isolation:_:)``.
    public func forEachLine(isolation: isolated (any Actor)? = #isolation,
                            _ body: (borrowing LineView) throws -> Void) async throws {
        try await readLines(of: self.body, skippingBlank: true, decoder: response.expectations.decoder,
                            usesFastJSONDecoder: response.expectations.usesFastJSONDecoder, isolation: isolation, body)
    }
}

/// The loop of both `forEachLine`s: chunks from the body, cut into lines, each lent to `body`.
private func readLines(of stream: StreamBody, skippingBlank: Bool, decoder: JSONDecoder, usesFastJSONDecoder: Bool,
                       isolation: isolated (any Actor)?, _ body: (borrowing LineView) throws -> Void) async throws {
    let iteration = StreamIteration(body: stream)
    var splitter = LineSplitter(endings: .lineFeed)
    var previewRoom = iteration.collectsPreviews ? NetworkLog.previewLimit : 0
    var number = 0
    // The caller's stream holds the decoder for the whole call; the views do not retain it.
    let unretained = Unmanaged.passUnretained(decoder)
    while true {
        let chunks = try await iteration.next(isolation: isolation)
        var lines = 0
        var previews: [String] = []
        var failure: (any Error)?
        func lend(_ line: UnsafeBufferPointer<UInt8>) {
            number += 1
            guard failure == nil else { return }
            if skippingBlank, !line.contains(where: { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0D) }) { return }
            lines += 1
            if previewRoom > 0 {
                let preview = NetworkLog.previewableText(line)
                previewRoom -= preview.utf8.count + 1
                previews.append(preview)
            }
            do {
                try body(LineView(UnsafeRawBufferPointer(line), number: number, decoder: unretained,
                                  usesFastJSONDecoder: usesFastJSONDecoder))
            } catch {
                failure = error
            }
        }
        do throws(StreamParseFailure) {
            if let chunks {
                for chunk in chunks where failure == nil {
                    try chunk.withUnsafeBytes(typed: { (bytes) throws(StreamParseFailure) in
                        try splitter.feed(bytes) { (line) throws(StreamParseFailure) in lend(line) }
                    })
                }
            } else {
                try splitter.finish { (line) throws(StreamParseFailure) in lend(line) }
            }
        } catch {
            stream.note(items: lines, previews: previews)
            throw iteration.fail(error.error(of: stream))
        }
        if lines > 0 { stream.note(items: lines, previews: previews) }
        if let failure {
            stream.cancel(because: "the reader of the lines threw \(type(of: failure))")
            throw failure
        }
        if chunks == nil { return }
    }
}
