/// One element of the 100 KB JSON array of scenario 3 (the runner writes the fixture):
///
///     {"id":7,"name":"item-00007","price":12.25,"active":true,"tags":["red","small"]}
///
/// Every Swift client decodes into `[Item]`, so the decoding work is identical across clients.
public struct Item: Decodable, Sendable {
    public let id: Int
    public let name: String
    public let price: Double
    public let active: Bool
    public let tags: [String]
}
