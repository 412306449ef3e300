import Foundation

/// Runs `body` with environment variables set (a `nil` value unsets one), then restores each to
/// what it was, whatever happens. The environment is the process's: run such tests serialized.
func withEnvironment<T>(_ variables: [String: String?], _ body: () async throws -> T) async rethrows -> T {
    let saved = variables.keys.map { ($0, ProcessInfo.processInfo.environment[$0]) }
    for (name, value) in variables {
        if let value { setenv(name, value, 1) } else { unsetenv(name) }
    }
    defer {
        for (name, value) in saved {
            if let value { setenv(name, value, 1) } else { unsetenv(name) }
        }
    }
    return try await body()
}
