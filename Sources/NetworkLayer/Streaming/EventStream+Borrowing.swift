import Foundation

extension EventStream {
    /// Reads every event as a ``ServerSentEvent/View`` of the bytes it arrived in: the fastest way
    /// to read a stream, with no string and, in the steady state, no allocation per event.
    ///
    /// ```swift
    /// var text = ""
    /// try await stream.forEachEvent { event in
    ///     if event.isEvent("delta") { text += try event.decode(Delta.self).text }
    /// }
    /// ```
    ///
    /// `body` runs on the caller's isolation, one event at a time. Reconnection, mocks, record mode,
    /// the log and metrics work as for `for try await event in stream`; a stream is read once, by either.
    ///
    /// - Throws: the ``NetworkError`` that ended the stream, or the error `body` threw: the stream
    ///   is then cancelled and its connection released. Throw to stop early.
    public func forEachEvent(isolation: isolated (any Actor)? = #isolation,
                             _ body: (borrowing ServerSentEvent.View) throws -> Void) async throws {
        var iteration = StreamIteration(body: self.body)
        let reconnector = EventStreamReconnector(self.body, of: response)
        var scanner = ServerSentEventScanner(decoder: response.expectations.decoder,
                                             usesFastJSONDecoder: response.expectations.usesFastJSONDecoder)
        var previewRoom = iteration.collectsPreviews ? NetworkLog.previewLimit : 0
        while true {
            let chunks: [Data]?
            var ending: NetworkError?
            do {
                chunks = try await iteration.next(isolation: isolation)
            } catch {
                guard reconnector != nil else { throw error }
                (chunks, ending) = (nil, error)
            }
            guard let chunks else {
                // The body ended (what it ended in is discarded); a reconnection may follow.
                let resumption = scanner.resumption
                scanner.finish()
                guard let reconnector,
                      let next = try await reconnector.reconnect(iteration.body, after: ending, from: resumption) else { return }
                scanner.resume(from: resumption)
                iteration = StreamIteration(body: next)
                continue
            }
            for chunk in chunks {
                let dispatchedBefore = scanner.dispatched
                var previews: [String] = []
                // Untyped: a generic error type would cost each event a look-up of its size.
                var failure: (any Error)?
                do throws(StreamParseFailure) {
                    try chunk.withUnsafeBytes(typed: { (bytes) throws(StreamParseFailure) in
                        try scanner.scan(bytes) { event in
                            if previewRoom > 0 {
                                let preview = event.dataString
                                previewRoom -= preview.utf8.count + 1
                                previews.append(preview)
                            }
                            do {
                                try body(event)
                                return true
                            } catch {
                                failure = error
                                return false
                            }
                        }
                    })
                } catch {
                    iteration.body.note(items: scanner.dispatched - dispatchedBefore, previews: previews)
                    throw iteration.fail(error.error(of: iteration.body))
                }
                let events = scanner.dispatched - dispatchedBefore
                if events > 0 {
                    iteration.body.note(items: events, previews: previews)
                    reconnector?.eventsArrived()
                }
                if let failure {
                    iteration.body.cancel(because: "the reader of the events threw \(type(of: failure))")
                    throw failure
                }
            }
        }
    }
}
