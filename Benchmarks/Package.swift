// swift-tools-version:6.1
// The benchmark harness of issue 7: NetworkLayer side by side with URLSession, AsyncHTTPClient and a
// C program on libcurl's multi interface. A separate package, so the library keeps no dependencies.
// Run it with `make bench` from the repository root (see README.md in this folder).
import PackageDescription

let package = Package(
    name: "Benchmarks",
    products: [
        .executable(name: "bench-networklayer", targets: ["BenchNetworkLayer"]),
        .executable(name: "bench-urlsession", targets: ["BenchURLSession"]),
        .executable(name: "bench-ahc", targets: ["BenchAHC"]),
    ],
    dependencies: [
        // Observability: the client's `--observe` runs TracingMiddleware and MetricsMiddleware (issue 33).
        .package(name: "NetworkLayer", path: "..", traits: ["Observability"]),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // Already in AsyncHTTPClient's graph; named here for ByteBuffer, its JSONDecoder overload
        // and TLSConfiguration.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.100.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.30.0"),
    ],
    targets: [
        // The command line, the result line, the fixture types and the worker loop every client shares.
        .target(name: "BenchSupport"),
        .executableTarget(
            name: "BenchNetworkLayer",
            dependencies: ["BenchSupport", .product(name: "NetworkLayer", package: "NetworkLayer"),
                           .product(name: "NetworkLayerObservability", package: "NetworkLayer")]
        ),
        .executableTarget(
            name: "BenchURLSession",
            dependencies: ["BenchSupport"]
        ),
        .executableTarget(
            name: "BenchAHC",
            dependencies: [
                "BenchSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
