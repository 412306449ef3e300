import Foundation
import NetworkLayer

// Issue 52: checking mocks against a staging backend, as the "Keeping mocks true" article reads it.
func checkMockDrift(against staging: some ServiceProvider, requests: [any MockDriftCheckable], net: NetworkManager) async throws {
    let report: MockDriftReport = try await MockDrift.check(against: staging, requests: requests)
    let all: MockDriftReport = try await MockDrift.check(against: staging, requests: requests, sendingNonIdempotent: true, manager: net)
    let entries: [MockDriftReport.Entry] = report.entries + all.drifted + all.additions + all.skipped
    for entry in entries {
        let mock: String? = entry.mock, skipped: String? = entry.skipped
        print(entry.request, mock ?? "", entry.differences, entry.additions, entry.notes, skipped ?? "")
    }
    let json: Data = report.json
    print(report, json.count, report == all, try JSONDecoder().decode(MockDriftReport.self, from: json))
}
