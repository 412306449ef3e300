import FuzzChecks
import Foundation

// The libFuzzer binary: one for every target, the target chosen by the environment variable
// FUZZ_TARGET (`FUZZ_TARGET=list` prints the names). scripts/fuzz.sh runs it once per target.

/// The target this process fuzzes.
let selectedTarget: FuzzTarget? = ProcessInfo.processInfo.environment["FUZZ_TARGET"].flatMap(FuzzTargets.named)

/// Called by libFuzzer once, before the first input.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>) -> CInt {
    let requested = ProcessInfo.processInfo.environment["FUZZ_TARGET"]
    if requested == "list" {
        print(FuzzTargets.all.map(\.name).joined(separator: "\n"))
        exit(0)
    }
    guard selectedTarget != nil else {
        let names = FuzzTargets.all.map(\.name).joined(separator: ", ")
        printError("FUZZ_TARGET=\(requested ?? "") is not a fuzz target; set it to one of: \(names)")
        exit(2)
    }
    return 0
}

/// Called by libFuzzer for every input: a failed check aborts, which libFuzzer reports as a crash
/// and saves the input as an artifact.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let target = selectedTarget else { return 0 }
    let input = start.map { Data(bytes: $0, count: count) } ?? Data()
    do {
        try target.check(input)
    } catch {
        printError("\n==== fuzz target \(target.name) failed its check: \(error.message)")
        abort()
    }
    return 0
}

private func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
