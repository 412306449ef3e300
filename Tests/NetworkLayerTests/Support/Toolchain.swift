import Foundation

/// The Swift toolchain on `PATH` (the one `swift test` ran with), for the checks that compile
/// code as a user of the library would: a declaration that must not compile, a build in release.
enum Toolchain {
    /// Where this test binary, the probes and the package's modules were built (`.build/debug`).
    static var binDirectory: URL { URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent() }

    /// What a compiler or build run printed, and how it ended.
    struct Outcome: Sendable, CustomStringConvertible {
        let status: Int32
        let output: String
        var description: String { "exit \(status): \(output)" }
    }

    /// Type-checks `source` as a file of a user's module that imports NetworkLayer as this test
    /// binary's build made it, in Swift 6 mode. About a tenth of a second: nothing is generated.
    static func typecheck(_ source: String) async throws -> Outcome {
        try await check(source, mode: ["-typecheck"])
    }

    /// Compiles `source` as ``typecheck(_:)`` does, through the checks that run after type-checking
    /// (a value used past its lifetime, such as a `~Escapable` view kept after its closure), generating no code.
    static func compile(_ source: String) async throws -> Outcome {
        try await check(source, mode: ["-emit-sil", "-o", "/dev/null"])
    }

    private static func check(_ source: String, mode: [String]) async throws -> Outcome {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("typecheck-\(UUID().uuidString).swift")
        try Data(source.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let bin = binDirectory
        return try await run(["swiftc"] + mode + ["-swift-version", "6",
                              "-I", bin.appendingPathComponent("Modules").path,
                              // NetworkLayer imports CNetworkLayerCurl internally; loading its module still needs the module map.
                              "-Xcc", "-fmodule-map-file=" + bin.appendingPathComponent("CNetworkLayerCurl.build/module.modulemap").path,
                              // The system libraries' module maps are in Sources/.
                              "-Xcc", "-fmodule-map-file=" + repositoryRoot
                                  .appendingPathComponent("Sources/CNetworkLayerZlib/module.modulemap").path,
                              file.path])
    }

    /// Runs `arguments` through `/usr/bin/env` (so the tool is found on `PATH`) off the cooperative
    /// pool, standard output and error together.
    static func run(_ arguments: [String], in directory: URL? = nil) async throws -> Outcome {
        try await offCooperativePool { () throws -> Outcome in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = arguments
            if let directory { process.currentDirectoryURL = directory }
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return Outcome(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
        }
    }
}
