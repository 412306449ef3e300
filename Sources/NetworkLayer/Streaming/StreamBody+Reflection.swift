import Foundation

extension StreamBody: CustomReflectable {
    /// What `dump` of a stream (``ByteStream``, ``EventStream``, ``JSONLines``) shows of its body:
    /// the request, redacted; never the request it holds nor the bytes waiting in its buffer.
    var customMirror: Mirror { Mirror(self, children: ["request": origin.description], displayStyle: .class) }
}
