// swift-tools-version:6.0
// A package as a user writes one: NetworkLayer by path, and C targets of its own with the names a
// user picks for OpenSSL and libcurl. It builds only while the library's C targets are named so
// that no user would pick them (SwiftPM: "multiple packages declare targets with a conflicting
// name"). It asks for nothing else: no other package, no trait. Built and run by `make test`
// (scripts/check-examples.sh).
import PackageDescription

let package = Package(
    name: "Consumer",
    dependencies: [
        .package(name: "NetworkLayer", path: "../.."),
    ],
    targets: [
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl"),
        .systemLibrary(name: "CLibcurl", pkgConfig: "libcurl"),
        .target(name: "CCurl", dependencies: ["CLibcurl"]),
        .executableTarget(
            name: "Consumer",
            dependencies: [.product(name: "NetworkLayer", package: "NetworkLayer"), "COpenSSL", "CCurl"],
            swiftSettings: [.unsafeFlags(["-warnings-as-errors"])]
        ),
    ],
    swiftLanguageModes: [.v6]
)
