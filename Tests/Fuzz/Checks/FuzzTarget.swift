import Foundation

/// One fuzz target: a name (`FUZZ_TARGET`, the folder of its seeds in `Tests/Fuzz/Corpus/` and of
/// its saved inputs in `Tests/Fixtures/FuzzRegressions/`) and the check that one input must pass.
///
/// A check calls the real parser with the input and throws a ``FuzzFailure`` when an expected
/// property does not hold (a difference from Foundation, a value out of its bounds, an answer that
/// changes on a second look). A trap inside the parser is a crash, which libFuzzer catches too.
public struct FuzzTarget: Sendable {
    public let name: String
    public let check: @Sendable (Data) throws(FuzzFailure) -> Void

    public init(_ name: String, _ check: @escaping @Sendable (Data) throws(FuzzFailure) -> Void) {
        self.name = name
        self.check = check
    }
}
