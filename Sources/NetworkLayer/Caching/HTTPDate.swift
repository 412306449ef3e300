import Foundation

/// HTTP dates (RFC 9110 section 5.6.7) read and written without a `DateFormatter`: the three
/// forms a recipient must accept, exactly as written there, but with names in any case (RFC 9111
/// section 4.2: a cache should match dates case-insensitively).
///
/// - IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`
/// - RFC 850: `Sunday, 06-Nov-94 08:49:37 GMT` (a two-digit year more than 50 years ahead of
///   `now` is the same year of the century before)
/// - asctime: `Sun Nov  6 08:49:37 1994`
///
/// Anything else is `nil` (a zone other than `GMT`, a day that does not exist in its month).
/// The result is whole seconds since 1970 as an `Int64`.
enum HTTPDate {
    private static let dayNames = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    private static let longDayNames = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
    private static let monthNames = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// The longest text that can be a date; longer is refused before anything is read.
    private static let longest = 40

    /// Seconds since 1970 for a date in one of the three forms; `nil` for anything else.
    /// `now` (seconds since 1970) places a two-digit RFC 850 year.
    static func seconds(from text: some StringProtocol, now: Double) -> Int64? {
        var bytes = Array(text.utf8.prefix(longest + 1))
        guard bytes.count <= longest else { return nil }
        while let last = bytes.last, last == 0x20 || last == 0x09 { bytes.removeLast() }
        let start = bytes.firstIndex { $0 != 0x20 && $0 != 0x09 } ?? bytes.endIndex
        var reader = Reader(bytes: Array(bytes[start...]))
        return reader.imfFixdate() ?? reader.rfc850(now: now) ?? reader.asctime()
    }

    /// `seconds` since 1970 as an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
    static func imfFixdate(_ seconds: Int64) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : -((-seconds + 86_399) / 86_400)
        let timeOfDay = seconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        // 1970-01-01 was a Thursday (index 3 from Monday).
        let weekday = Int(((days % 7) + 7 + 3) % 7)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearText = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
        return "\(dayNames[weekday].capitalized), \(two(day)) \(monthNames[Int(month) - 1].capitalized) \(yearText) "
            + "\(two(timeOfDay / 3600)):\(two(timeOfDay / 60 % 60)):\(two(timeOfDay % 60)) GMT"
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
    static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of a day since 1970-01-01 (Howard Hinnant's civil_from_days).
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func daysInMonth(_ month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// A date's parts, checked; seconds since 1970, or `nil` when a part is out of range.
    /// A leap second (60) is read as the last second of its minute.
    private static func seconds(year: Int64, month: Int64, day: Int64, hour: Int64, minute: Int64, second: Int64) -> Int64? {
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(month, year: year),
              (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second) else { return nil }
        return days(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + min(second, 59)
    }

    private struct Reader {
        let bytes: [UInt8]
        var position = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { position == bytes.count }

        mutating func literal(_ text: String) -> Bool {
            var offset = 0
            for byte in text.utf8 {
                guard position + offset < bytes.count, lower(bytes[position + offset]) == byte else { return false }
                offset += 1
            }
            position += offset
            return true
        }

        /// One of `names` (lowercase), in any case; its index.
        mutating func name(in names: [String]) -> Int? {
            for (index, name) in names.enumerated() {
                let saved = position
                if literal(name) { return index }
                position = saved
            }
            return nil
        }

        mutating func digits(_ count: Int) -> Int64? {
            guard position + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[position..<position + count] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            position += count
            return value
        }

        mutating func timeOfDay() -> (Int64, Int64, Int64)? {
            guard let hour = digits(2), literal(":"), let minute = digits(2), literal(":"), let second = digits(2) else { return nil }
            return (hour, minute, second)
        }

        private func lower(_ byte: UInt8) -> UInt8 {
            byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
        }

        /// `Sun, 06 Nov 1994 08:49:37 GMT`
        mutating func imfFixdate() -> Int64? {
            position = 0
            guard name(in: HTTPDate.dayNames) != nil, literal(", "), let day = digits(2), literal(" "),
                  let month = name(in: HTTPDate.monthNames), literal(" "), let year = digits(4), literal(" "),
                  let (hour, minute, second) = timeOfDay(), literal(" gmt"), atEnd else { return nil }
            return HTTPDate.seconds(year: year, month: Int64(month) + 1, day: day, hour: hour, minute: minute, second: second)
        }

        /// `Sunday, 06-Nov-94 08:49:37 GMT`
        mutating func rfc850(now: Double) -> Int64? {
            position = 0
            guard name(in: HTTPDate.longDayNames) != nil, literal(", "), let day = digits(2), literal("-"),
                  let month = name(in: HTTPDate.monthNames), literal("-"), let twoDigits = digits(2), literal(" "),
                  let (hour, minute, second) = timeOfDay(), literal(" gmt"), atEnd else { return nil }
            // RFC 9110: a year more than 50 years in the future is the most recent past year
            // with the same last two digits.
            let clamped = now.isFinite ? min(max(now, -62_135_596_800), 253_402_300_799) : 0
            let currentYear = HTTPDate.civil(fromDays: Int64((clamped / 86_400).rounded(.down))).year
            var year = currentYear - currentYear % 100 + twoDigits
            if year > currentYear + 50 { year -= 100 }
            return HTTPDate.seconds(year: year, month: Int64(month) + 1, day: day, hour: hour, minute: minute, second: second)
        }

        /// `Sun Nov  6 08:49:37 1994` (a one-digit day after a space)
        mutating func asctime() -> Int64? {
            position = 0
            guard name(in: HTTPDate.dayNames) != nil, literal(" "), let month = name(in: HTTPDate.monthNames), literal(" ") else { return nil }
            let day: Int64
            if literal(" ") {
                guard let digit = digits(1) else { return nil }
                day = digit
            } else {
                guard let twoDigits = digits(2) else { return nil }
                day = twoDigits
            }
            guard literal(" "), let (hour, minute, second) = timeOfDay(), literal(" "), let year = digits(4), atEnd else { return nil }
            return HTTPDate.seconds(year: year, month: Int64(month) + 1, day: day, hour: hour, minute: minute, second: second)
        }
    }
}
