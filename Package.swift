// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "NetworkLayer",
    products: [
        .library(name: "NetworkLayer", targets: ["NetworkLayer"]),
        // Spans, metrics and logs through swift-distributed-tracing, swift-metrics and swift-log.
        // Its sources compile to nothing unless the `Observability` trait is on, and a consumer
        // that does not name the trait resolves none of those packages.
        .library(name: "NetworkLayerObservability", targets: ["NetworkLayerObservability"]),
        // A `ClientTransport` for swift-openapi-generator's clients. Its sources compile to nothing
        // unless the `OpenAPI` trait is on, and a consumer that does not name the trait resolves
        // neither swift-openapi-runtime nor swift-http-types.
        .library(name: "NetworkLayerOpenAPI", targets: ["NetworkLayerOpenAPI"]),
        // `swift run networklayer-pins https://api.example.com`: a server's verified chain and its
        // pins, a suggested rule, a check of pins against the live server (the PinsTool article).
        .executable(name: "networklayer-pins", targets: ["NetworkLayerPins"]),
    ],
    // The core depends on no Swift package. Each trait brings in what one opt-in product needs;
    // no trait is on by default.
    traits: [
        .trait(name: "Observability", description: "NetworkLayerObservability: TracingMiddleware, MetricsMiddleware, SwiftLogBridge"),
        .trait(name: "OpenAPI", description: "NetworkLayerOpenAPI: NetworkLayerTransport, a ClientTransport for swift-openapi-generator's clients"),
        .trait(name: "IntegrationTests", description: "The project's own tests of every opt-in product (make test)",
               enabledTraits: ["Observability", "OpenAPI"]),
        .default(enabledTraits: []),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4", traits: []),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        // The system libraries, found through pkg-config. Without them SwiftPM prints the
        // command that installs them instead of "curl/curl.h not found".
        .systemLibrary(
            name: "CNetworkLayerLibcurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(
            name: "CNetworkLayerOpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        // zlib: request bodies compressed (BodyCompression) and WebSocket's permessage-deflate.
        .systemLibrary(
            name: "CNetworkLayerZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // The only C in the project: typed forwarders for libcurl's variadic calls and the
        // OpenSSL helpers that certificate pinning needs.
        .target(
            name: "CNetworkLayerCurl",
            dependencies: ["CNetworkLayerLibcurl", "CNetworkLayerOpenSSL"]
        ),
        // The JSON decoder the library uses in place of a default JSONDecoder: internal to the
        // package (not a product), checked against the installed Foundation by FastJSONTests.
        .target(
            name: "FastJSON",
            exclude: ["README.md"]
        ),
        .target(
            name: "NetworkLayer",
            dependencies: ["CNetworkLayerCurl", "CNetworkLayerZlib", "FastJSON"],
            // The settings table: scripts/settings.py writes Swift from it (`make settings`).
            exclude: ["Manager/Settings.toml"],
            // `ServerSentEvent.View` is `~Escapable`: the lifetime of the spans it returns is declared
            // with `@_lifetime`, which this feature enables. Users of the view need no flag.
            swiftSettings: [.enableExperimentalFeature("Lifetimes")]
        ),
        .target(
            name: "NetworkLayerObservability",
            dependencies: [
                "NetworkLayer",
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Observability"])),
                .product(name: "CoreMetrics", package: "swift-metrics", condition: .when(traits: ["Observability"])),
                .product(name: "Tracing", package: "swift-distributed-tracing", condition: .when(traits: ["Observability"])),
            ]
        ),
        .target(
            name: "NetworkLayerOpenAPI",
            dependencies: [
                "NetworkLayer",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: .when(traits: ["OpenAPI"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["OpenAPI"])),
            ]
        ),
        // networklayer-pins: the chain and pins through the library's own handshake, nothing else.
        .executableTarget(
            name: "NetworkLayerPins",
            dependencies: ["NetworkLayer"]
        ),
        // The public API as users write it, in a module of its own, warnings as errors. Built, never run.
        .executableTarget(
            name: "APICheck",
            dependencies: [
                "NetworkLayer",
                .target(name: "NetworkLayerObservability", condition: .when(traits: ["Observability"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Observability"])),
                .product(name: "CoreMetrics", package: "swift-metrics", condition: .when(traits: ["Observability"])),
                .product(name: "Tracing", package: "swift-distributed-tracing", condition: .when(traits: ["Observability"])),
                .target(name: "NetworkLayerOpenAPI", condition: .when(traits: ["OpenAPI"])),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: .when(traits: ["OpenAPI"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["OpenAPI"])),
            ],
            path: "Tests/APICheck",
            swiftSettings: [.unsafeFlags(["-warnings-as-errors"])]
        ),
        // README.md's ```swift blocks, in order, as one program: main.swift is generated from the README by
        // scripts/readme-check.py (`make readme-check`, the first step of `make test`), which points
        // each block's errors at its line in README.md. Built with warnings as errors, never run.
        .executableTarget(
            name: "ReadmeCheck",
            dependencies: [
                "NetworkLayer",
                .target(name: "NetworkLayerObservability", condition: .when(traits: ["Observability"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Observability"])),
                .target(name: "NetworkLayerOpenAPI", condition: .when(traits: ["OpenAPI"])),
            ],
            path: "Tests/ReadmeCheck",
            swiftSettings: [.unsafeFlags(["-warnings-as-errors"])]
        ),
        // The long reliability runs (`make stress`): soak, cancellation storm, leak check.
        .executableTarget(
            name: "NetworkLayerStress",
            dependencies: ["NetworkLayer"],
            path: "Tests/Stress"
        ),
        .testTarget(
            name: "NetworkLayerTests",
            dependencies: [
                "NetworkLayer", "FastJSON", "StreamMemoryProbe", "DiskWriteProbe", "RequestProbe", "CacheProbe", "LibcurlInitProbe", "TestScheduling",
                // networklayer-pins, built beside the test binary for PinsToolTests.
                "NetworkLayerPins",
                // The opt-in products' tests (Tests/NetworkLayerTests/Observability), compiled with the `IntegrationTests` trait.
                .target(name: "NetworkLayerObservability", condition: .when(traits: ["IntegrationTests"])),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing", condition: .when(traits: ["IntegrationTests"])),
                .product(name: "MetricsTestKit", package: "swift-metrics", condition: .when(traits: ["IntegrationTests"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["IntegrationTests"])),
                .target(name: "NetworkLayerOpenAPI", condition: .when(traits: ["IntegrationTests"])),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: .when(traits: ["IntegrationTests"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["IntegrationTests"])),
                .target(name: "OpenAPIMemoryProbe", condition: .when(traits: ["IntegrationTests"])),
            ]
        ),
        // One download through NetworkLayerTransport in a process of its own, for its peak resident
        // size ("NetworkLayerOpenAPI": 1 GB to a slow reader stays under 64 MB).
        .executableTarget(
            name: "OpenAPIMemoryProbe",
            dependencies: [
                "NetworkLayer",
                .target(name: "NetworkLayerOpenAPI", condition: .when(traits: ["IntegrationTests"])),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: .when(traits: ["IntegrationTests"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["IntegrationTests"])),
            ],
            path: "Tests/OpenAPIMemoryProbe"
        ),
        // How a test uses the machine: `.measuring` tests run alone, `.sharing` ones alongside each
        // other (Tests/TestScheduling/MachineUse.swift). One module for every test target, so that
        // its lock is the whole test process's.
        .target(
            name: "TestScheduling",
            path: "Tests/TestScheduling"
        ),
        // One streamed download per process, for the peak resident size of a whole process
        // ("Stream backpressure": 1 GB to a slow reader stays under 64 MB).
        .executableTarget(
            name: "StreamMemoryProbe",
            dependencies: ["NetworkLayer"],
            path: "Tests/StreamMemoryProbe"
        ),
        // One download in a process whose files may not grow beyond a limit (RLIMIT_FSIZE), for
        // "Disk write failures": the write fails mid-transfer as on a full disk.
        .executableTarget(
            name: "DiskWriteProbe",
            dependencies: ["NetworkLayer"],
            path: "Tests/DiskWriteProbe"
        ),
        // One request per process: its environment set at spawn ("Proxies from the environment")
        // or its peak resident size its own (the memory-bound download, upload and decompression tests).
        .executableTarget(
            name: "RequestProbe",
            dependencies: ["NetworkLayer"],
            path: "Tests/RequestProbe"
        ),
        // The response cache's disk tier in a process of its own ("two processes share one cache
        // directory"). It reaches the engine through @testable import: debug builds only (it says so otherwise).
        .executableTarget(
            name: "CacheProbe",
            dependencies: ["NetworkLayer"],
            path: "Tests/CacheProbe"
        ),
        // libcurl's first use in a process of its own, one order per process ("libcurl's initialisation").
        // It reaches the engine through @testable import: debug builds only (it says so otherwise).
        .executableTarget(
            name: "LibcurlInitProbe",
            dependencies: ["NetworkLayer", "CNetworkLayerCurl"],
            path: "Tests/LibcurlInitProbe"
        ),
        // One decoding-memory measurement per process (FastJSONTests' "Decoding memory", the Reliability article's figures).
        .executableTarget(
            name: "JSONMemoryProbe",
            dependencies: ["FastJSON"],
            path: "Tests/JSONMemoryProbe"
        ),
        .testTarget(
            name: "FastJSONTests",
            dependencies: ["FastJSON", "JSONMemoryProbe", "TestScheduling"]
        ),
        // The fuzz targets' checks (Tests/Fuzz/Checks), replayed over their seeds and every saved
        // failing input; `make fuzz` builds the same checks into a libFuzzer binary (Tests/Fuzz).
        .testTarget(
            name: "FuzzRegressionTests",
            dependencies: ["NetworkLayer", "FastJSON", "TestScheduling"],
            path: "Tests/Fuzz",
            exclude: ["Package.swift", "README.md", "Entry", "Corpus"],
            sources: ["Checks", "Regressions"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
