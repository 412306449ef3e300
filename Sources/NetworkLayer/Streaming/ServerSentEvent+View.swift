import Foundation

extension ServerSentEvent {
    /// One event as ``EventStream/forEachEvent(isolation:_:)`` lends it: views of the bytes it
    /// arrived in, valid only inside the closure (the compiler refuses to let a view or its spans
    /// out). Make a `String`, or a whole ``ServerSentEvent``, only of what you keep.
    ///
    /// ```swift
    /// try await stream.forEachEvent { event in
    ///     guard !event.dataEquals("[DONE]") else { return }
    ///     if event.isEvent("delta") { text += try event.decode(Delta.self).text }
    /// }
    /// ```
    public struct View: ~Escapable {
        /// What the scanner keeps of the event: a view is one pointer to it, so lending copies nothing.
        struct Fields {
            var data = UnsafeRawBufferPointer(start: nil, count: 0)
            var type = UnsafeRawBufferPointer(start: nil, count: 0)
            var id = UnsafeRawBufferPointer(start: nil, count: 0)
            var retry: Duration?
            /// The scanner's count of last event ID changes as of this event.
            var idChanges = 0
            var decoder: Unmanaged<JSONDecoder>?
            var usesFastJSONDecoder = true
        }

        let fields: UnsafePointer<Fields>

        // Made only by the scanner, inside the scope of the bytes it points to; what keeps a view
        // from outliving them is that readers only ever get it borrowed, and it is `~Escapable`.
        @_lifetime(immortal)
        init(_ fields: UnsafePointer<Fields>) {
            self.fields = fields
        }

        var dataBytes: UnsafeRawBufferPointer { fields.pointee.data }
        var typeBytes: UnsafeRawBufferPointer { fields.pointee.type }
        var idBytes: UnsafeRawBufferPointer { fields.pointee.id }
        var idChanges: Int { fields.pointee.idChanges }
        var usesFastJSONDecoder: Bool { fields.pointee.usesFastJSONDecoder }
        var decoder: JSONDecoder? { fields.pointee.decoder?.takeUnretainedValue() }

        /// The reconnection time from a `retry:` line received since the previous event; `nil`
        /// when none was sent.
        public var retry: Duration? { fields.pointee.retry }

        /// The data as the server sent it: the `data:` lines joined with `\n`, not checked as
        /// UTF-8 (``dataString`` repairs it as ``ServerSentEvent/data`` does).
        public var data: RawSpan {
            @_lifetime(copy self)
            get { _overrideLifetime(RawSpan(_unsafeBytes: dataBytes), copying: self) }
        }

        /// The `event:` type; `nil` for the default type, "message".
        public var event: RawSpan? {
            @_lifetime(copy self)
            get { typeBytes.isEmpty ? nil : _overrideLifetime(RawSpan(_unsafeBytes: typeBytes), copying: self) }
        }

        /// The last event ID as of this event (sticky); `nil` when none was set or an empty `id:` reset it.
        public var id: RawSpan? {
            @_lifetime(copy self)
            get { idBytes.isEmpty ? nil : _overrideLifetime(RawSpan(_unsafeBytes: idBytes), copying: self) }
        }

        /// The data as a `String` (made now; invalid UTF-8 repaired with U+FFFD).
        public var dataString: String { String(decoding: dataBytes, as: UTF8.self) }

        /// Whether the data is exactly `text`, compared as bytes (no string is made).
        public func dataEquals(_ text: String) -> Bool {
            Self.bytes(dataBytes, equal: text)
        }

        /// Whether the event's type is `type`; the default type is "message".
        public func isEvent(_ type: String) -> Bool {
            typeBytes.isEmpty ? type == "message" : Self.bytes(typeBytes, equal: type)
        }

        /// Decodes the data as JSON, as ``ServerSentEvent/decode(_:using:)`` does, straight from the bytes.
        public func decode<T: Decodable>(_ type: T.Type, using decoder: JSONDecoder? = nil) throws(NetworkError) -> T {
            guard let base = dataBytes.baseAddress, !dataBytes.isEmpty else {
                return try ServerSentEvent.decode(T.self, from: Data(), eventType: eventString, using: decoder ?? self.decoder,
                                                  usesFastJSONDecoder: usesFastJSONDecoder)
            }
            let data = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: dataBytes.count, deallocator: .none)
            return try ServerSentEvent.decode(T.self, from: data, eventType: eventString, using: decoder ?? self.decoder,
                                              usesFastJSONDecoder: usesFastJSONDecoder)
        }

        /// The type as a `String` (made now); `nil` for the default type, as ``ServerSentEvent/event``.
        public var eventString: String? { typeBytes.isEmpty ? nil : String(decoding: typeBytes, as: UTF8.self) }
        /// The id as a `String` (made now); `nil` when none, as ``ServerSentEvent/id``.
        public var idString: String? { idBytes.isEmpty ? nil : String(decoding: idBytes, as: UTF8.self) }

        private static func bytes(_ bytes: UnsafeRawBufferPointer, equal text: String) -> Bool {
            var text = text
            return text.withUTF8 { $0.count == bytes.count && $0.elementsEqual(bytes) }
        }
    }

    /// The event `view` shows, its strings made now: what to keep of an event read by
    /// ``EventStream/forEachEvent(isolation:_:)``.
    public init(_ view: borrowing View) {
        self.init(id: view.idString, event: view.eventString, data: view.dataString, retry: view.retry,
                  decoder: view.decoder, usesFastJSONDecoder: view.usesFastJSONDecoder)
    }
}
