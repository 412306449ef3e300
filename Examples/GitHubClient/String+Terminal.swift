import Foundation

extension String {
    /// The text with its control characters shown as `\u{1B}` instead of acted on: text from a
    /// server (a description, an error message) must not move the cursor, change colours or
    /// rewrite the terminal's title. Bidirectional overrides are escaped too (they can make a
    /// line read differently from what it holds).
    func printable() -> String {
        var text = ""
        for scalar in unicodeScalars {
            let isBidiControl = (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
            if scalar.properties.generalCategory == .control || isBidiControl {
                text += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            } else {
                text.unicodeScalars.append(scalar)
            }
        }
        return text
    }

    /// The text right-aligned in `width` columns.
    func leftPadded(to width: Int) -> String {
        String(repeating: " ", count: max(0, width - count)) + self
    }
}
