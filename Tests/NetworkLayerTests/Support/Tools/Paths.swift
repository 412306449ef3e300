import Foundation

/// `Tests/` in this checkout, found from this file's path.
let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
    .deletingLastPathComponent()
/// The repository root.
let repositoryRoot = testsDirectory.deletingLastPathComponent()
/// `Certificates/` in this checkout.
let certificatesDirectory = repositoryRoot.appendingPathComponent("Certificates", isDirectory: true)
/// `Tests/Fixtures/MockResponses`: mock files (and sidecars) the tests answer from.
let fixtureMocks = testsDirectory.appendingPathComponent("Fixtures/MockResponses", isDirectory: true)
