import Foundation

extension PreparedRequest: CustomReflectable {
    /// What `dump` shows of a request that a value holds on to: `METHOD URL`, redacted. Its
    /// headers and body, credentials included, are never shown.
    var customMirror: Mirror { Mirror(self, children: ["request": redactedDescription], displayStyle: .class) }
}
