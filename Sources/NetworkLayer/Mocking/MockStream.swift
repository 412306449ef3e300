import Foundation

/// The body of a mocked streaming response, fed to its stream by a task, paced by `eventDelay`
/// between events or lines, in 64 KB chunks when there is no pace.
enum MockStream {
    static let chunkSize = 64 << 10

    /// Starts feeding `pieces` to a new stream; cancelling the stream stops the task. With
    /// `cutAfterEvents`, the stream fails as a cut connection would after that many pieces.
    static func start(_ pieces: [Data], eventDelay: Duration, cutAfterEvents: Int? = nil, for request: PreparedRequest) -> StreamBody {
        let buffer = StreamBuffer()
        let timeout = request.timeout
        let description = request.redactedDescription
        let task = Task.detached {
            for (index, piece) in pieces.enumerated() {
                if let cutAfterEvents, index == cutAfterEvents {
                    buffer.finish(.transport(.init(request: description, reason:
                        "the mock cut the connection after \(cutAfterEvents) events (its cutAfterEvents)")))
                    return
                }
                if index > 0, eventDelay > .zero {
                    let timesOut = timeout.isFinite && timeout < eventDelay.seconds
                    do {
                        try await Task.sleep(for: timesOut ? .seconds(timeout) : eventDelay)
                    } catch {
                        return  // the stream was cancelled
                    }
                    if timesOut {
                        buffer.finish(.timeOut(.init(request: description, reason:
                            "the mock's eventDelay of \(eventDelay.seconds.compactText) s exceeds the timeout of \(timeout.compactText) s")))
                        return
                    }
                }
                guard buffer.append(piece) else { return }
            }
            buffer.finish(nil)
        }
        buffer.setControl(.init(resume: {}, cancel: { task.cancel() }))
        return StreamBody(buffer: buffer, origin: request.origin)
    }

    /// An event stream's body as one piece per event, from the event after the one whose id is
    /// `lastEventID` on, as a server that keeps its events resumes. `resumed` is the index of the
    /// first event sent, `nil` when the body was not resumed.
    ///
    /// The resume point is where the parser's resumption id (what a live reconnection sends)
    /// became `lastEventID`: after the last event with it, or after a block giving only that id.
    static func events(of body: Data, after lastEventID: String?) -> (pieces: [Data], resumed: Int?) {
        var parser = ServerSentEventParser()
        var pieces: [Data] = []
        var pending = Data()
        var resumed: Int?
        var dispatched: [ServerSentEvent] = []
        for piece in Self.pieces(of: body, kind: .events, paced: true) {
            pending.append(piece)
            let before = parser.resumption?.lastEventID
            try? parser.feed(piece, into: &dispatched)
            let now = parser.resumption?.lastEventID
            let reached = lastEventID != nil && now == lastEventID && (!dispatched.isEmpty || now != before)
            guard !dispatched.isEmpty || reached else { continue }
            pieces.append(pending)
            pending = Data()
            if reached { resumed = pieces.count }
            dispatched.removeAll(keepingCapacity: true)
        }
        guard let resumed else { return (pieces, nil) }
        return (Array(pieces[resumed...]), resumed)
    }

    /// The body cut after each event's blank line or each LF; unpaced, in ``chunkSize`` pieces.
    static func pieces(of body: Data, kind: StreamKind, paced: Bool) -> [Data] {
        guard !body.isEmpty else { return [] }
        let bytes = [UInt8](body)
        var cuts: [Int] = []
        if paced {
            var lineStart = 0
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                guard byte == 0x0A || (byte == 0x0D && kind == .events) else { index += 1; continue }
                let end = byte == 0x0D && index + 1 < bytes.count && bytes[index + 1] == 0x0A ? index + 2 : index + 1
                if kind != .events || index == lineStart { cuts.append(end) }
                lineStart = end
                index = end
            }
        } else {
            cuts = Array(stride(from: chunkSize, to: bytes.count, by: chunkSize))
        }
        var pieces: [Data] = []
        var start = 0
        for cut in cuts where cut > start {
            pieces.append(Data(bytes[start..<cut]))
            start = cut
        }
        if start < bytes.count { pieces.append(Data(bytes[start...])) }
        return pieces
    }
}
