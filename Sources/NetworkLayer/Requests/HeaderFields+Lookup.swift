import Foundation

extension Array where Element == (name: String, value: String) {
    func value(for name: String) -> String? {
        first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }
}
