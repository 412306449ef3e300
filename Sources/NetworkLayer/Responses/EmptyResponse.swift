/// The response type of an endpoint that answers with no body (204 No Content, or a body to ignore).
public struct EmptyResponse: Decodable, Sendable, Equatable {
    public init() {}
    public init(from decoder: any Decoder) throws {}
}
