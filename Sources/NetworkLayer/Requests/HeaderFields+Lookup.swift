import Foundation

extension Array where Element == (name: String, value: String) {
    /// The value of the first header with this name, ignoring case.
    func value(for name: String) -> String? {
        first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }
}
