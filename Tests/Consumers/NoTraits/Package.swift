// swift-tools-version:6.1
// A package that uses NetworkLayer and names none of its traits, as most apps will. It must resolve
// no package at all: scripts/check-examples.sh resolves it and fails if Package.resolved pins any.
import PackageDescription

let package = Package(
    name: "NoTraits",
    dependencies: [
        .package(name: "NetworkLayer", path: "../../.."),
    ],
    targets: [
        .executableTarget(
            name: "NoTraits",
            dependencies: [.product(name: "NetworkLayer", package: "NetworkLayer")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
