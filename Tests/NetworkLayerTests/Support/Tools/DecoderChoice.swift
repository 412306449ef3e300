import Foundation
@testable import NetworkLayer

/// A value that records which decoder built it: the type name of the `Decoder` it was handed
/// (`FastJSON.…` for the library's decoder, Foundation's own type otherwise).
struct DecoderName: Decodable, Sendable, Equatable {
    let name: String
    let value: Int

    private enum Keys: String, CodingKey { case value }

    init(from decoder: any Decoder) throws {
        name = String(reflecting: type(of: decoder))
        value = try decoder.container(keyedBy: Keys.self).decode(Int.self, forKey: .value)
    }

    /// Whether FastJSON decoded it.
    var isFastJSON: Bool { name.hasPrefix("FastJSON.") }
}

/// An error body that records which decoder built it.
struct DecoderNameErrorBody: ServerErrorBody {
    let decoded: DecoderName

    init(from decoder: any Decoder) throws {
        decoded = try DecoderName(from: decoder)
    }

    var serverMessage: String? { nil }
}

/// A provider that may opt out of FastJSON.
struct DecoderChoiceProvider: ServiceProvider {
    var host = "127.0.0.1"
    var httpScheme: HTTPScheme = .http
    var port: Int? = 9
    var usesFastJSONDecoder = true
    var errorBodyType: (any ServerErrorBody.Type)? = DecoderNameErrorBody.self
}

/// A provider that declares nothing about decoding.
struct SilentProvider: ServiceProvider {
    var host: String { "127.0.0.1" }
    var httpScheme: HTTPScheme { .http }
}
