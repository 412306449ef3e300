// The OpenAPI transport's public API (issue 34) and the operation ID it rests on, compiled when
// the OpenAPI trait is on (make test turns it on). A generated client is built by the tests
// (Tests/NetworkLayerTests/OpenAPI) and by Examples/OpenAPIClient.

import Foundation
import NetworkLayer
#if OpenAPI
import HTTPTypes
import NetworkLayerOpenAPI
import OpenAPIRuntime
#endif

struct NotesProvider: ServiceProvider {
    var host: String { "notes.example.com" }
    var httpScheme: HTTPScheme { .https }
    var authentication: Authentication? { .bearer("token") }
}

final class NamedOperation: BaseRequest<[String: String]> {
    init() {
        super.init(serviceProvider: NotesProvider(), endpoint: "/greet")
        operationID = "getGreeting"       // names the call in the log, its entries, middlewares' spans and mocks
    }
}

struct OperationTiming: RequestMiddleware {
    func intercept(_ request: OutgoingRequest, next: RequestMiddlewareNext) async throws(NetworkError) -> NetworkLayer.HTTPResponse {
        print(request.operationID ?? "unnamed")
        let response = try await next(request)
        let lines: [(name: String, value: String)] = response.headerFields
        print(lines.count)
        return response
    }
}

func checkOpenAPIAPI() async throws {
    Net.mocks.register(operationID: "getGreeting", .json(["message": "Hello, Ada"]))
    Net.mocks.register(operationID: "getGreeting", [.status(503), .json(["message": "Hello, Ada"])])
    Net.mocks.register(operationID: "getNote") { request in
        request.operationID == "getNote" ? .json(["id": 1]) : .status(404)
    }
    Net.logEntryHandler = { entry in print(entry.operationID ?? "", entry) }
    Net.middlewares = [OperationTiming()]
    let operation: String? = NamedOperation().operationID
    print(operation ?? "", Net.mocks.requests.last?.operationID ?? "")
    #if OpenAPI
    let transport = NetworkLayerTransport(provider: NotesProvider())          // manager: .shared by default
    let onItsOwn = NetworkLayerTransport(provider: NotesProvider(), manager: NetworkManager())
    let transports: [any ClientTransport] = [transport, onItsOwn]
    print(transport.provider.host, transport.manager === Net, transports.count)
    let (response, body): (HTTPTypes.HTTPResponse, HTTPBody?) = try await transport.send(
        HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/greet?name=Ada"), body: nil,
        baseURL: URL(string: "https://notes.example.com/v1")!, operationID: "getGreeting")
    print(response.status.code, body?.length ?? .unknown)
    #endif
}
