// swift-tools-version:6.0
// NetworkLayer's structured log sent to swift-log: a separate package, so that the library itself
// keeps no dependencies. `make test` builds and runs it when swift-log can be resolved.
import PackageDescription

let package = Package(
    name: "SwiftLogBridge",
    dependencies: [
        .package(name: "NetworkLayer", path: "../.."),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .executableTarget(
            name: "SwiftLogBridge",
            dependencies: [
                .product(name: "NetworkLayer", package: "NetworkLayer"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
