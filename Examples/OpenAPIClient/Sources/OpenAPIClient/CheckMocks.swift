import Foundation
import NetworkLayer

// `--check-mocks --server <url>`: the mocks this example answers from (the JSON files of
// MockResponses/ and the getNote mock in code) checked against a live server with MockDrift, as a
// team checks its mocks against staging. Each request names its operation, so mock mode finds the
// same mock the generated client gets; the types are the generated ones.

final class GreetingCheck: BaseRequest<Components.Schemas.Greeting> {
    init(_ provider: BaseURLProvider) {
        super.init(serviceProvider: provider, endpoint: "/greet")
        params = ["name": "Ada"]
        operationID = "getGreeting"
    }
}

final class CreateNoteCheck: BaseRequest<Components.Schemas.Note> {
    init(_ provider: BaseURLProvider) {
        super.init(serviceProvider: provider, endpoint: "/notes")
        httpMethod = .post
        body = .json(Components.Schemas.NewNote(text: "buy milk"))
        operationID = "createNote"
    }
}

final class NoteCheck: BaseRequest<Components.Schemas.Note> {
    init(_ provider: BaseURLProvider) {
        super.init(serviceProvider: provider, endpoint: "/notes/1")
        operationID = "getNote"
    }
}

/// The report of the three checks; `createNote` is a POST, sent because the server is a test one.
func checkMocks(against provider: BaseURLProvider) async throws -> MockDriftReport {
    try await MockDrift.check(against: provider, requests: [GreetingCheck(provider), CreateNoteCheck(provider), NoteCheck(provider)],
                              sendingNonIdempotent: true)
}
