// swift-tools-version:6.1
// NetworkLayer's calls traced with swift-otel's tracer (W3C trace context on the wire) and its log
// sent to swift-log, through the opt-in product NetworkLayerObservability, as an app wires them: the
// package trait `Observability` on the dependency. `make test` builds and runs it against a local
// server (scripts/check-examples.sh).
import PackageDescription

let package = Package(
    name: "Observability",
    dependencies: [
        .package(name: "NetworkLayer", path: "../..", traits: ["Observability"]),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        // OTLPHTTP: swift-otel 1.6.0 does not compile with no exporter trait at all.
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        .executableTarget(
            name: "Observability",
            dependencies: [
                .product(name: "NetworkLayer", package: "NetworkLayer"),
                .product(name: "NetworkLayerObservability", package: "NetworkLayer"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "OTel", package: "swift-otel"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
