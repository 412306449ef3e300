import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Issue 12: the library's JSON decoder (FastJSON) can be turned off for a manager
/// (`Net.usesFastJSONDecoder = false`) or for one provider (`usesFastJSONDecoder` returning
/// `false`), so that a Foundation upgrade can never silently change decoding in production.
/// Which decoder ran is read from the type of the `Decoder` a value is handed.
@Suite("Choosing the JSON decoder", .sharing)
struct FastJSONChoiceTests {
    /// A manager in mock mode answering `/value` with `{"value": 7}` and `/failure` with a 500 and the same body.
    func manager() -> NetworkManager {
        let net = makeManager(mocks: URL(fileURLWithPath: "/nonexistent-mock-directory"))
        net.mocks.register(.get, "/value", .data(Data(#"{"value": 7}"#.utf8)))
        net.mocks.register(.get, "/failure", .data(Data(#"{"value": 7}"#.utf8), status: 500))
        return net
    }

    @Test("By default FastJSON decodes responses and error bodies, for a manager and a provider that say nothing")
    func fastByDefault() async throws {
        let net = manager()
        #expect(net.usesFastJSONDecoder)
        #expect(SilentProvider().usesFastJSONDecoder)
        let value = try await net.perform(TestRequest<DecoderName>(DecoderChoiceProvider(), "/value"))
        #expect(value.isFastJSON, "\(value.name)")
        #expect(value.value == 7)
        let error = await networkError { try await net.perform(TestRequest<DecoderName>(DecoderChoiceProvider(), "/failure")) }
        let body = try #require(error?.serverError(as: DecoderNameErrorBody.self))
        #expect(body.decoded.isFastJSON, "\(body.decoded.name)")
    }

    @Test("usesFastJSONDecoder = false on the manager: Foundation's JSONDecoder decodes every response and error body")
    func managerOptOut() async throws {
        let net = manager()
        net.usesFastJSONDecoder = false
        let value = try await net.perform(TestRequest<DecoderName>(DecoderChoiceProvider(), "/value"))
        #expect(!value.isFastJSON, "\(value.name)")
        #expect(value.value == 7)
        let keyed = TestRequest<Int>(DecoderChoiceProvider(), "/value")
        keyed.keyPath = "value"
        #expect(try await net.perform(keyed) == 7)
        let error = await networkError { try await net.perform(TestRequest<DecoderName>(DecoderChoiceProvider(), "/failure")) }
        let body = try #require(error?.serverError(as: DecoderNameErrorBody.self))
        #expect(!body.decoded.isFastJSON, "\(body.decoded.name)")

        net.usesFastJSONDecoder = true
        #expect(try await net.perform(TestRequest<DecoderName>(DecoderChoiceProvider(), "/value")).isFastJSON)
    }

    @Test("A provider's usesFastJSONDecoder = false: Foundation decodes its responses, other providers keep FastJSON")
    func providerOptOut() async throws {
        let net = manager()
        let legacy = DecoderChoiceProvider(usesFastJSONDecoder: false)
        let value = try await net.perform(TestRequest<DecoderName>(legacy, "/value"))
        #expect(!value.isFastJSON, "\(value.name)")
        let error = await networkError { try await net.perform(TestRequest<DecoderName>(legacy, "/failure")) }
        let body = try #require(error?.serverError(as: DecoderNameErrorBody.self))
        #expect(!body.decoded.isFastJSON, "\(body.decoded.name)")
        #expect(try await net.perform(TestRequest<DecoderName>(DecoderChoiceProvider(), "/value")).isFastJSON)
    }

    @Test("A provider cannot turn FastJSON on where the manager turned it off")
    func managerWins() async throws {
        let net = manager()
        net.usesFastJSONDecoder = false
        let value = try await net.perform(TestRequest<DecoderName>(DecoderChoiceProvider(usesFastJSONDecoder: true), "/value"))
        #expect(!value.isFastJSON, "\(value.name)")
    }

    @Test("A decoder with options of its own is used as it is, whatever the choice")
    func customDecoderIsFoundations() async throws {
        let net = manager()
        let request = TestRequest<DecoderName>(DecoderChoiceProvider(), "/value")
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        request.jsonDecoder = decoder
        let value = try await net.perform(request)
        #expect(!value.isFastJSON, "\(value.name)")
    }

    @Test("Streams follow the choice: server-sent events' data and JSON lines", arguments: [true, false])
    func streams(managerUsesFastJSON: Bool) async throws {
        let net = manager()
        net.usesFastJSONDecoder = managerUsesFastJSON
        net.mocks.register(.get, "/events", .events([ServerSentEvent(data: #"{"value": 1}"#), ServerSentEvent(data: #"{"value": 2}"#)]))
        net.mocks.register(.get, "/lines", .data(Data("{\"value\": 1}\n{\"value\": 2}\n".utf8)))
        for provider in [DecoderChoiceProvider(), DecoderChoiceProvider(usesFastJSONDecoder: false)] {
            let expected = managerUsesFastJSON && provider.usesFastJSONDecoder
            var values: [Int] = []
            for try await event in try await net.perform(TestRequest<EventStream>(provider, "/events")) {
                let decoded = try event.decode(DecoderName.self)
                #expect(decoded.isFastJSON == expected, "\(decoded.name)")
                values.append(decoded.value)
            }
            for try await decoded in try await net.perform(TestRequest<JSONLines<DecoderName>>(provider, "/lines")) {
                #expect(decoded.isFastJSON == expected, "\(decoded.name)")
                values.append(decoded.value)
            }
            #expect(values == [1, 2, 1, 2])
        }
    }

    @Test("A failure reads the same whichever decoder ran")
    func sameFailure() async throws {
        let net = manager()
        let fast = await networkError { try await net.perform(TestRequest<[String]>(DecoderChoiceProvider(), "/value")) }
        net.usesFastJSONDecoder = false
        let foundation = await networkError { try await net.perform(TestRequest<[String]>(DecoderChoiceProvider(), "/value")) }
        #expect(fast?.errorDescription != nil)
        #expect(fast?.errorDescription == foundation?.errorDescription)
    }
}
