// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "NetworkLayer",
    products: [
        .library(name: "NetworkLayer", targets: ["NetworkLayer"]),
    ],
    targets: [
        // The only C in the project: typed forwarders for libcurl's variadic calls and the
        // OpenSSL helpers that certificate pinning needs. Linked against the system's libcurl
        // and libcrypto (`make deps` installs their headers).
        .target(
            name: "CCurl",
            linkerSettings: [.linkedLibrary("curl"), .linkedLibrary("ssl"), .linkedLibrary("crypto")]
        ),
        .target(
            name: "NetworkLayer",
            dependencies: ["CCurl"]
        ),
        // The demo (`make demo`): the original README's iTunes search example.
        .executableTarget(
            name: "ITunesSearch",
            dependencies: ["NetworkLayer"],
            path: "Examples/ITunesSearch"
        ),
        // The public API as users write it, in a module of its own, warnings as errors. Built, never run.
        .executableTarget(
            name: "APICheck",
            dependencies: ["NetworkLayer"],
            path: "Tests/APICheck",
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
            dependencies: ["NetworkLayer"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
