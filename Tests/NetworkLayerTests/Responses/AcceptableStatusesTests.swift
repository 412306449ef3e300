import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Which statuses pass validation: `StatusCodes` (ranges and single codes) on the request and the
/// provider, beside the older `acceptableStatusCodes` range. The request wins over the provider,
/// and on each the set wins over the range; every row of that precedence against a real server.
@Suite("Acceptable statuses", .sharing)
struct AcceptableStatusesTests {
    /// A provider that declares only the range (as every provider written before the set existed).
    struct RangeProvider: ServiceProvider {
        let port: Int?
        var host: String { "127.0.0.1" }
        var httpScheme: HTTPScheme { .http }
        var acceptableStatusCodes: Range<Int>
    }

    /// A provider that declares the set, and perhaps the range too.
    struct SetProvider: ServiceProvider {
        let port: Int?
        var host: String { "127.0.0.1" }
        var httpScheme: HTTPScheme { .http }
        var acceptableStatusCodes: Range<Int> = 200..<300
        var acceptableStatuses: StatusCodes
    }

    /// One row of the precedence: what is set where, and which of the probed statuses pass.
    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let providerRange: Range<Int>?
        let providerSet: StatusCodes?
        let requestRange: Range<Int>?
        let requestSet: StatusCodes?
        let accepted: Set<Int>
        var testDescription: String { name }
    }

    static let probed = [200, 204, 304, 404, 418]

    static let rows: [Row] = [
        Row(name: "nothing set: 200..<300", providerRange: nil, providerSet: nil, requestRange: nil, requestSet: nil,
            accepted: [200, 204]),
        Row(name: "the provider's range alone", providerRange: 200..<400, providerSet: nil, requestRange: nil, requestSet: nil,
            accepted: [200, 204, 304]),
        Row(name: "the provider's set alone", providerRange: nil, providerSet: StatusCodes(200, 304), requestRange: nil,
            requestSet: nil, accepted: [200, 304]),
        Row(name: "the provider's set wins over its range", providerRange: 200..<500, providerSet: StatusCodes(204, 418),
            requestRange: nil, requestSet: nil, accepted: [204, 418]),
        Row(name: "the request's range wins over the provider's set", providerRange: nil, providerSet: StatusCodes(418),
            requestRange: 300..<405, requestSet: nil, accepted: [304, 404]),
        Row(name: "the request's range wins over the provider's range", providerRange: 200..<500, providerSet: nil,
            requestRange: 200..<201, requestSet: nil, accepted: [200]),
        Row(name: "the request's set wins over the provider's set", providerRange: nil, providerSet: StatusCodes(200..<300),
            requestRange: nil, requestSet: StatusCodes(304, 418), accepted: [304, 418]),
        Row(name: "the request's set wins over its own range and the provider's", providerRange: 200..<300,
            providerSet: StatusCodes(200), requestRange: 400..<500, requestSet: StatusCodes(200..<300, 304),
            accepted: [200, 204, 304]),
    ]

    @Test("Each row of the precedence decides which statuses pass (request › provider, set › range)", arguments: rows)
    func precedence(row: Row) async throws {
        let server = try await TestServer.shared()
        let provider: any ServiceProvider = if let set = row.providerSet {
            SetProvider(port: server.port, acceptableStatusCodes: row.providerRange ?? 200..<300, acceptableStatuses: set)
        } else {
            RangeProvider(port: server.port, acceptableStatusCodes: row.providerRange ?? 200..<300)
        }
        let net = makeManager()
        for status in Self.probed {
            let request = TestRequest<EmptyResponse>(provider, "/status/\(status)")
            request.acceptableStatusCodes = row.requestRange
            request.acceptableStatuses = row.requestSet
            do {
                _ = try await net.perform(request)
                #expect(row.accepted.contains(status), "\(status) passed")
            } catch {
                #expect(!row.accepted.contains(status), "\(status) failed: \(error)")
                #expect(error.context?.statusCode == status)
            }
        }
    }

    @Test("The provider's default set is its range, so a provider written for the range keeps working")
    func providerDefaultSetIsItsRange() {
        #expect(RangeProvider(port: 1, acceptableStatusCodes: 200..<400).acceptableStatuses == StatusCodes(200..<400))
        #expect(TestProvider(host: "h", httpScheme: .http, port: 1).acceptableStatuses == StatusCodes.success)
    }

    @Test("A request's validator runs for a status the set accepts (304), and validateStatus(acceptable:) takes a set")
    func validatorAndValidateStatusUseTheSet() async throws {
        let server = try await TestServer.shared()
        let seen = CallRecorder<Int>()
        let request = TestRequest<EmptyResponse>(server.provider(), "/status/304")
        request.acceptableStatuses = [200..<300, 304]
        request.validator = { seen.record($0.statusCode) }
        let (_, response) = try await makeManager().performWithResponse(request)
        #expect(seen.values == [304])
        try response.validateStatus(acceptable: StatusCodes(304))
        #expect(throws: NetworkError.self) { try response.validateStatus(acceptable: StatusCodes(200..<300)) }
        #expect(throws: NetworkError.self) { try response.validateStatus(acceptable: 200..<300) }
        try response.validateStatus()
    }

    @Test("A download whose status the set accepts is moved into place; one it refuses is not")
    func downloadUsesTheSet() async throws {
        let server = try await TestServer.shared()
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let accepted = DownloadRequest(server.provider(), "/status/203", to: directory.appendingPathComponent("a.json"))
        accepted.acceptableStatuses = StatusCodes(203)
        let file = try await makeManager().perform(accepted)
        #expect(FileManager.default.fileExists(atPath: file.url.path))
        let refused = DownloadRequest(server.provider(), "/status/200", to: directory.appendingPathComponent("b.json"))
        refused.acceptableStatuses = StatusCodes(203)
        refused.acceptableStatusCodes = 200..<300   // the set wins
        let error = await networkError { try await makeManager().perform(refused) }
        #expect(error?.context?.statusCode == 200)
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("b.json").path))
    }

    @Test("StatusCodes merges, orders and describes its ranges; empty ranges add nothing; any Int is safe")
    func statusCodesValue() {
        let set = StatusCodes(304, 200..<300, 300...303, 500..<500, 418)
        #expect(set.ranges == [200...304, 418...418])
        #expect(set.description == "200-304, 418")
        #expect(set == [200...304, 418])
        #expect(set.contains(200) && set.contains(304) && set.contains(418))
        #expect(!set.contains(305) && !set.contains(199) && !set.contains(417))
        #expect(StatusCodes().contains(200) == false)
        #expect(StatusCodes().description == "none")
        #expect(StatusCodes(200..<200).ranges.isEmpty)
        let extreme = StatusCodes(Int.min...Int.min, Int.max, Int.min..<0, (Int.max - 1)...Int.max)
        #expect(extreme.contains(Int.min) && extreme.contains(-1) && extreme.contains(Int.max) && !extreme.contains(0))
        #expect(extreme.description == "\(Int.min)--1, \(Int.max - 1)-\(Int.max)")
        #expect(StatusCodes(Int.min...Int.max).contains(0))
        #expect(StatusCodes(Int.min...Int.max).description == "\(Int.min)-\(Int.max)")
    }

    @Test("Random members give the same set as a plain membership check, merged into disjoint sorted ranges")
    func randomMembers() {
        var random = SeededRandom(seed: 25)
        for _ in 0..<500 {
            var members: [any StatusCodeExpression] = []
            var expected = Set<Int>()
            for _ in 0..<Int.random(in: 0...6, using: &random) {
                let low = Int.random(in: 95...610, using: &random)
                switch Int.random(in: 0...2, using: &random) {
                case 0: members.append(low); expected.insert(low)
                case 1:
                    let high = Int.random(in: low...(low + 40), using: &random)
                    members.append(low..<high); expected.formUnion(low..<high)
                default:
                    let high = Int.random(in: low...(low + 40), using: &random)
                    members.append(low...high); expected.formUnion(low...high)
                }
            }
            let set = StatusCodes(members)
            for code in 90...660 { #expect(set.contains(code) == expected.contains(code)) }
            let ranges = set.ranges
            for (a, b) in zip(ranges, ranges.dropFirst()) { #expect(a.upperBound + 1 < b.lowerBound, "\(ranges)") }
        }
    }
}
