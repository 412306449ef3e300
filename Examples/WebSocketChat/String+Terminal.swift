import Foundation

extension String {
    /// The text with its control characters shown as `\u{1B}` instead of acted on, line breaks and
    /// tabs kept: what a server writes (a model's answer is whatever the model wrote) must not move
    /// the cursor, change colours or rewrite the terminal's title. Bidirectional overrides are
    /// escaped too (they can make a line read differently from what it holds).
    func printable() -> String {
        var text = ""
        for scalar in unicodeScalars {
            let isBidiControl = (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
            if (scalar.properties.generalCategory == .control && scalar != "\n" && scalar != "\t") || isBidiControl {
                text += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            } else {
                text.unicodeScalars.append(scalar)
            }
        }
        return text
    }
}
