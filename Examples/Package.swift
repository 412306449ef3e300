// swift-tools-version:6.1
// The examples that use only the core: `make demo` (ITunesSearch), `make demo-github`, `make demo-chat`
// and `make demo-ws`. A package of its own that depends on the library by path and names no trait, as
// a user's first package does: it resolves no Swift package and needs no network (scripts/check-demo.sh
// builds it offline). Warnings are errors: an example that warns teaches the warning.
// Examples/Observability and Examples/OpenAPIClient are packages of their own, with the traits they need.
import PackageDescription

let strict: [SwiftSetting] = [.unsafeFlags(["-warnings-as-errors"])]

let package = Package(
    name: "Examples",
    dependencies: [
        .package(name: "NetworkLayer", path: ".."),
    ],
    targets: [
        // The original README's iTunes search example.
        .executableTarget(
            name: "ITunesSearch",
            dependencies: [.product(name: "NetworkLayer", package: "NetworkLayer")],
            path: "ITunesSearch"
        ),
        // A GitHub-style client: Link pagination, ETag/304, rate limit, errors.
        .executableTarget(
            name: "GitHubClient",
            dependencies: [.product(name: "NetworkLayer", package: "NetworkLayer")],
            path: "GitHubClient",
            exclude: ["README.md"],
            swiftSettings: strict
        ),
        // An OpenAI-style chat answer streamed token by token.
        .executableTarget(
            name: "ChatClient",
            dependencies: [.product(name: "NetworkLayer", package: "NetworkLayer")],
            path: "ChatClient",
            exclude: ["README.md", "MockResponses"],
            swiftSettings: strict
        ),
        // A chat over a WebSocket, answered by a scripted mock server.
        .executableTarget(
            name: "WebSocketChat",
            dependencies: [.product(name: "NetworkLayer", package: "NetworkLayer")],
            path: "WebSocketChat",
            exclude: ["MockResponses"],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
