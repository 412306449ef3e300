// swift-tools-version:6.1
// A client generated from openapi.yaml by swift-openapi-generator's build plugin, running on
// NetworkLayer through NetworkLayerTransport (the package trait `OpenAPI` on the dependency).
// `make demo-openapi` runs it from mocks; `make test` builds it and runs it against
// Tests/Servers/openapi_server.py (scripts/check-examples.sh).
import PackageDescription

let package = Package(
    name: "OpenAPIClient",
    dependencies: [
        .package(name: "NetworkLayer", path: "../..", traits: ["OpenAPI"]),
        .package(url: "https://github.com/apple/swift-openapi-generator", from: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4", traits: []),
    ],
    targets: [
        .executableTarget(
            name: "OpenAPIClient",
            dependencies: [
                .product(name: "NetworkLayer", package: "NetworkLayer"),
                .product(name: "NetworkLayerOpenAPI", package: "NetworkLayer"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ],
            exclude: ["MockResponses"],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
