// swift-tools-version:5.4
// 5.4 on purpose: from tools version 5.5 on, SwiftPM renames an executable's entry point on Linux
// (`NetworkLayerFuzz_main`) and links `main` to it, which leaves nothing for libFuzzer's own `main`
// (SwiftNIO's FuzzTesting package stays below 5.5 for the same reason). The code is Swift 6.
import PackageDescription

// The libFuzzer binary of `make fuzz` (see README.md): the checks in Checks/ (which the main
// package's FuzzRegressionTests also compiles, to replay the corpus and every saved regression
// input in `make test`), linked with the library built with `-sanitize=fuzzer,address` and testing
// enabled, so the checks reach its internal parsers through `@testable import`.
let package = Package(
    name: "NetworkLayerFuzz",
    dependencies: [
        .package(name: "NetworkLayer", path: "../.."),
    ],
    targets: [
        .target(
            name: "FuzzChecks",
            dependencies: [.product(name: "NetworkLayer", package: "NetworkLayer")],
            path: "Checks"
        ),
        .executableTarget(
            name: "NetworkLayerFuzz",
            dependencies: ["FuzzChecks"],
            path: "Entry",
            // libFuzzer brings `main`; this module only defines the callbacks it calls.
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
    ],
    swiftLanguageVersions: [.version("6")]
)
