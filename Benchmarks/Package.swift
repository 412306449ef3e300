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
        .executable(name: "bench-openapi", targets: ["BenchOpenAPI"]),
        .executable(name: "bench-ws-echo-server", targets: ["BenchWSEchoServer"]),
        .executable(name: "bench-ws-networklayer", targets: ["BenchWSNetworkLayer"]),
        .executable(name: "bench-ws-kit", targets: ["BenchWSKit"]),
    ],
    dependencies: [
        // Observability: the client's `--observe` runs TracingMiddleware and MetricsMiddleware (issue 33).
        // OpenAPI: bench-openapi's NetworkLayerTransport (issue 34).
        .package(name: "NetworkLayer", path: "..", traits: ["Observability", "OpenAPI"]),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // Already in AsyncHTTPClient's graph; named here for ByteBuffer, its JSONDecoder overload
        // and TLSConfiguration.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.100.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.30.0"),
        // bench-openapi: the generated client over each of the three transports.
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4", traits: []),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
        // The WebSocket scenario (websocket.py): a SwiftNIO echo server, and Vapor's client to compare with.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/vapor/websocket-kit.git", from: "2.16.2"),
    ],
    targets: [
        // The command line, the result line, the fixture types and the worker loop every client shares.
        .target(name: "BenchSupport"),
        .executableTarget(
            name: "BenchNetworkLayer",
            dependencies: ["BenchSupport", .product(name: "NetworkLayer", package: "NetworkLayer"),
                           .product(name: "NetworkLayerObservability", package: "NetworkLayer")],
            // `--observe` (InstructionClient/Package.swift builds the same sources without the trait, and without it).
            swiftSettings: [.define("BENCH_OBSERVE")]
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
        // Examples/OpenAPIClient's generated client (Sources/BenchOpenAPI/Generated links to the
        // tests' copy, which scripts/openapi-generated.sh checks against the generator; its files
        // are wrapped in `#if IntegrationTests`, hence the define) on NetworkLayerTransport,
        // AsyncHTTPClientTransport or URLSessionTransport.
        .executableTarget(
            name: "BenchOpenAPI",
            dependencies: [
                "BenchSupport",
                .product(name: "NetworkLayer", package: "NetworkLayer"),
                .product(name: "NetworkLayerOpenAPI", package: "NetworkLayer"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: [.define("IntegrationTests")]
        ),
        .executableTarget(
            name: "BenchWSEchoServer",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
            ]
        ),
        .executableTarget(
            name: "BenchWSNetworkLayer",
            dependencies: [.product(name: "NetworkLayer", package: "NetworkLayer")]
        ),
        .executableTarget(
            name: "BenchWSKit",
            dependencies: [
                .product(name: "WebSocketKit", package: "websocket-kit"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
