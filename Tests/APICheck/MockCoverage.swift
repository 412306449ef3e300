import NetworkLayer

// Issue 52: what the mocks covered, as the mock article reads it.
func reportMockCoverage(_ net: NetworkManager) {
    let coverage: MockCoverage = net.mocks.coverage
    let unmocked: [MockCoverage.Unmocked] = coverage.unmockedRequests
    print(coverage.unusedRegistrations, coverage.unusedFiles, unmocked.map { ($0.method, $0.path, $0.answeredByFallback) }, coverage)
}
