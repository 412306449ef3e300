// swift-tools-version:6.0
// The worker of the HTTP cache conformance harness (`make cache-conformance`, see README.md in this
// folder): it performs each request proxy.py hands it through NetworkLayer with a memory cache, so
// the public cache-tests suite (https://github.com/http-tests/cache-tests) measures the library's
// response cache. A separate package, not part of `make test` or CI: the suite needs node.
// Build it in debug (`-c debug`, as run.sh does): it imports the library with `@testable`.
import PackageDescription

let package = Package(
    name: "NetworkLayerCacheConformance",
    dependencies: [
        .package(name: "NetworkLayer", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "CacheConformanceWorker",
            dependencies: [.product(name: "NetworkLayer", package: "NetworkLayer")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
