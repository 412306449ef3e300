import Foundation

extension Array<UInt8> {
    /// Whether `needle`'s bytes occur in this array, byte for byte. Secrets are looked for as
    /// bytes, not as `Character`s: a string search compares grapheme clusters, so a secret next to
    /// a combining mark (or starting with one) would not be found in text that holds it.
    func containsBytes(_ needle: some Collection<UInt8>) -> Bool {
        firstRange(ofBytes: Array(needle), from: startIndex) != nil
    }

    /// Every occurrence of `needle` replaced by `replacement`; `nil` when there is none.
    func replacingBytes(_ needle: [UInt8], with replacement: [UInt8]) -> [UInt8]? {
        guard !needle.isEmpty, var range = firstRange(ofBytes: needle, from: startIndex) else { return nil }
        var result: [UInt8] = []
        result.reserveCapacity(count)
        var copied = startIndex
        while true {
            result += self[copied..<range.lowerBound]
            result += replacement
            copied = range.upperBound
            guard let next = firstRange(ofBytes: needle, from: copied) else { break }
            range = next
        }
        result += self[copied...]
        return result
    }

    /// The percent-escapes (`%2F`, either case) decoded; a `%` not followed by two hex digits
    /// stays as it is, so text that is not well-formed is still decoded wherever it can be.
    func percentDecodedLeniently() -> [UInt8] {
        percentDecodedLenientlyWithSources().decoded
    }

    /// ``percentDecodedLeniently()``, and where each decoded byte came from: byte `i` of `decoded`
    /// is `self[sources[i]..<sources[i + 1]]` (one byte, or an escape's three); `sources` ends with
    /// `endIndex`, so it has one element more than `decoded`.
    func percentDecodedLenientlyWithSources() -> (decoded: [UInt8], sources: [Int]) {
        func hexValue(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var result: [UInt8] = []
        var sources: [Int] = []
        result.reserveCapacity(count)
        sources.reserveCapacity(count + 1)
        var index = startIndex
        while index < endIndex {
            sources.append(index)
            if self[index] == UInt8(ascii: "%"), index + 2 < endIndex,
               let high = hexValue(self[index + 1]), let low = hexValue(self[index + 2]) {
                result.append(high << 4 | low)
                index += 3
            } else {
                result.append(self[index])
                index += 1
            }
        }
        sources.append(endIndex)
        return (result, sources)
    }

    func firstRange(ofBytes needle: [UInt8], from start: Int) -> Range<Int>? {
        guard let first = needle.first, needle.count <= count - start else { return needle.isEmpty ? start..<start : nil }
        let lastStart = count - needle.count
        var index = start
        while index <= lastStart {
            guard let candidate = self[index...lastStart].firstIndex(of: first) else { return nil }
            if self[candidate..<(candidate + needle.count)].elementsEqual(needle) { return candidate..<(candidate + needle.count) }
            index = candidate + 1
        }
        return nil
    }
}

extension Collection<UInt8> {
    /// The first range where `needle`'s bytes occur, byte for byte (`"://".utf8` in a URL's
    /// `utf8`); `nil` for an empty needle. Specialised in this module, unlike the standard
    /// library's generic `firstRange(of:)`, which looks up type metadata on every call.
    func firstByteRange(of needle: some Collection<UInt8>) -> Range<Index>? {
        guard let first = needle.first else { return nil }
        var start = startIndex
        while let candidate = self[start...].firstIndex(of: first) {
            var end = candidate
            var matched = true
            for byte in needle {
                guard end != endIndex, self[end] == byte else { matched = false; break }
                formIndex(after: &end)
            }
            if matched { return candidate..<end }
            start = index(after: candidate)
        }
        return nil
    }
}
