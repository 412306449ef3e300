import Foundation

/// Where the saved fuzz inputs are.
enum FuzzInputs {
    /// `Tests/Fuzz/Corpus`: the seed inputs, a folder per target.
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Corpus", isDirectory: true)
    /// `Tests/Fixtures/FuzzRegressions`: every input a fuzzing run failed on, a folder per target.
    static let regressions = corpus.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/FuzzRegressions", isDirectory: true)

    /// A saved failing input of `target`.
    static func regression(_ target: String, _ name: String) throws -> Data {
        try Data(contentsOf: regressions.appendingPathComponent(target).appendingPathComponent(name))
    }

    /// The seed and regression inputs of `target`, sorted by path.
    static func files(for target: String) -> [URL] {
        [corpus, regressions].flatMap { folder -> [URL] in
            let directory = folder.appendingPathComponent(target, isDirectory: true)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            return names.filter { !$0.hasPrefix(".") }.map { directory.appendingPathComponent($0) }
        }.sorted { $0.path < $1.path }
    }
}
