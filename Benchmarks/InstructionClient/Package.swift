// swift-tools-version:6.1
// The client `make instructions` profiles (scripts/instructions.py): Benchmarks' bench-networklayer, the
// same sources (Sources/ links to Benchmarks/Sources), in a package that depends on the library alone,
// with no trait. So CI's release build of it resolves and compiles no other package: Benchmarks'
// own manifest would resolve AsyncHTTPClient, SwiftNIO and Hummingbird first. Without the define
// `BENCH_OBSERVE` the client has no `--observe` (it would need the trait Observability).
import PackageDescription

let package = Package(
    name: "InstructionClient",
    products: [
        .executable(name: "bench-networklayer", targets: ["BenchNetworkLayer"]),
    ],
    dependencies: [
        .package(name: "NetworkLayer", path: "../.."),
    ],
    targets: [
        .target(name: "BenchSupport"),
        .executableTarget(
            name: "BenchNetworkLayer",
            dependencies: ["BenchSupport", .product(name: "NetworkLayer", package: "NetworkLayer")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
