import Foundation

// Values the tests send and receive.

/// A user, as the mock files in `Tests/Fixtures/MockResponses` hold one.
struct User: Codable, Sendable, Equatable {
    let id: Int
    let name: String
}

/// A new user, sent as a JSON body.
struct NewUser: Codable, Sendable, Equatable {
    let firstName: String
    let joined: Date
    let tags: [String]
}

/// An item with a snake_case key and an ISO 8601 date, as ``ShopProvider`` decodes them.
struct Item: Codable, Sendable, Equatable {
    let id: Int
    let createdAt: Date
}

/// A profile, as the mocks registered in code answer with one.
struct Profile: Codable, Sendable, Equatable {
    let name: String
}

/// A token, as a login endpoint answers with one.
struct Token: Codable, Sendable, Equatable {
    let value: String
}
