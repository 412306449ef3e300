import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// Mocks written in code (`net.mocks.register`): by request class, by method and path, as a
/// sequence; checked before mock files, answered through the same path as a live response.
@Suite("Mocks in code", .sharing)
struct MockRegistryTests {
    /// A provider whose port has nothing listening: any network attempt fails with `.reachability`.
    let offline = TestProvider(host: "127.0.0.1", httpScheme: .http, port: try! closedPort())

    /// A manager of the test's own in mock mode, with an empty mock directory.
    func mockManager(log: LogCollector? = nil) -> NetworkManager {
        makeManager(mocks: URL(fileURLWithPath: "/nonexistent-mock-directory"), log: log)
    }

    @Test("A mock registered for a request class answers it with a JSON value, status 200")
    func registeredByClassAnswersWithJSON() async throws {
        let net = mockManager()
        net.mocks.register(ProfileRequest.self) { _ in .json(Profile(name: "Ada")) }
        let (profile, response) = try await net.performWithResponse(ProfileRequest(offline))
        #expect(profile == Profile(name: "Ada"))
        #expect(response.statusCode == 200)
        #expect(response.isMocked)
        #expect(response.value(forHeader: "content-type") == "application/json")
    }

    @Test("The closure receives the request as it would go out, so one closure answers several endpoints")
    func closureReceivesThePublicView() async throws {
        let net = mockManager()
        let provider = TestProvider(host: "127.0.0.1", httpScheme: .http, port: offline.port, headers: ["X-App": "shop"])
        net.mocks.register(ProfileRequest.self) { request in
            guard request.method == .get, request.value(forHeader: "x-app") == "shop", request.body == nil else { return .status(400) }
            return .json(Profile(name: request.url.path))
        }
        #expect(try await net.perform(ProfileRequest(provider)).name == "/profile")
        #expect(try await net.perform(ProfileRequest(provider, endpoint: "/profile/2")).name == "/profile/2")
    }

    @Test("A subclass's own registration wins over its superclass's, which answers subclasses without one")
    func mostSpecificClassWins() async throws {
        let net = mockManager()
        net.mocks.register(ProfileRequest.self) { _ in .json(Profile(name: "any profile")) }
        #expect(try await net.perform(AdminProfileRequest(offline)).name == "any profile")
        net.mocks.register(AdminProfileRequest.self) { _ in .json(Profile(name: "admin")) }
        #expect(try await net.perform(AdminProfileRequest(offline)).name == "admin")
        #expect(try await net.perform(ProfileRequest(offline)).name == "any profile")
        // Registered in the other order, the same answers.
        let other = mockManager()
        other.mocks.register(AdminProfileRequest.self) { _ in .json(Profile(name: "admin")) }
        other.mocks.register(ProfileRequest.self) { _ in .json(Profile(name: "any profile")) }
        #expect(try await other.perform(AdminProfileRequest(offline)).name == "admin")
    }

    @Test("Registering again for the same class or route replaces the earlier registration")
    func registeringAgainReplaces() async throws {
        let net = mockManager()
        net.mocks.register(ProfileRequest.self) { _ in .json(Profile(name: "first")) }
        net.mocks.register(ProfileRequest.self) { _ in .json(Profile(name: "second")) }
        #expect(try await net.perform(ProfileRequest(offline)).name == "second")
        net.mocks.register(.get, "/users/7", .json(User(id: 7, name: "first")))
        net.mocks.register(.get, "/users/7", .json(User(id: 7, name: "second")))
        #expect(try await net.perform(TestRequest<User>(offline, "/users/7")).name == "second")
    }

    @Test("A mock registered for a method and path answers that method and path only")
    func registeredByMethodAndPath() async throws {
        let net = mockManager()
        net.mocks.register(.get, "/search", .json(User(id: 1, name: "found")))
        #expect(try await net.perform(TestRequest<User>(offline, "/search", params: ["term": "jazz"])).name == "found")
        let error = await networkError { try await net.perform(TestRequest<User>(offline, "/search", method: .post)) }
        #expect(error?.caseName == "mockNotFound")
        let other = await networkError { try await net.perform(TestRequest<User>(offline, "/search/more")) }
        #expect(other?.caseName == "mockNotFound")
    }

    @Test("Paths match whatever their slashes and escapes, and with or without the provider's basePath",
          arguments: [("/users/7", ""), ("users/7", ""), ("/users/7/", ""), ("/users/%37", ""),
                      ("/users/7", "/api/v2"), ("/api/v2/users/7", "/api/v2"), ("api/v2/users/7/", "api/v2/")])
    func pathsAreNormalised(registered: String, basePath: String) async throws {
        let net = mockManager()
        net.mocks.register(.get, registered, .json(User(id: 7, name: "Ada")))
        let provider = TestProvider(host: "127.0.0.1", httpScheme: .http, port: offline.port, basePath: basePath)
        #expect(try await net.perform(TestRequest<User>(provider, "/users/7")).id == 7)
    }

    @Test("A registered path with a query matches those query items exactly, in any order, before a path without one")
    func queryRegistrationsMatchExactly() async throws {
        let net = mockManager()
        net.mocks.register(.get, "/search", .json(User(id: 0, name: "any query")))
        net.mocks.register(.get, "/search?term=jazz%20fusion&limit=3", .json(User(id: 1, name: "jazz")))
        #expect(try await net.perform(TestRequest<User>(offline, "/search", params: ["limit": 3, "term": "jazz fusion"])).name == "jazz")
        #expect(try await net.perform(TestRequest<User>(offline, "/search", params: ["term": "jazz fusion"])).name == "any query")
        #expect(try await net.perform(TestRequest<User>(offline, "/search", params: ["limit": 3, "term": "rock"])).name == "any query")
    }

    @Test("A closure registered for a method and path sees the query and body")
    func routeClosureSeesTheRequest() async throws {
        let net = mockManager()
        net.mocks.register(.post, "/login") { request in
            let credentials = (try? JSONSerialization.jsonObject(with: request.body ?? Data())) as? [String: String]
            return credentials?["password"] == "right" ? .json(Token(value: "t")) : .status(401)
        }
        #expect(try await net.perform(LoginRequest(offline, user: "ada", password: "right")) == Token(value: "t"))
        let error = await networkError { try await net.perform(LoginRequest(offline, user: "ada", password: "wrong")) }
        #expect(error?.caseName == "unauthorizedAccess")
    }

    @Test("A sequence answers in turn, then repeats its last answer")
    func sequenceThenTheLastRepeats() async throws {
        let net = mockManager()
        net.mocks.register(.get, "/users/7", [.json(User(id: 7, name: "one")), .status(404), .json(User(id: 7, name: "last"))])
        let request = { TestRequest<User>(self.offline, "/users/7") }
        #expect(try await net.perform(request()).name == "one")
        #expect(await networkError { try await net.perform(request()) }?.caseName == "notFound")
        for _ in 0..<3 { #expect(try await net.perform(request()).name == "last") }
    }

    @Test("Concurrent requests take each answer of a sequence exactly once")
    func sequenceUnderConcurrency() async throws {
        let net = mockManager()
        net.mocks.register(.get, "/n", (1...40).map { .json(User(id: $0, name: "n")) })
        let ids = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 1...40 { group.addTask { try await net.perform(TestRequest<User>(self.offline, "/n")).id } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(ids.sorted() == Array(1...40))
        #expect(try await net.perform(TestRequest<User>(offline, "/n")).id == 40)
    }

    @Test("An empty sequence is .invalidRequest naming the registration")
    func emptySequenceIsAClearError() async throws {
        let net = mockManager()
        net.mocks.register(.get, "/empty", [])
        let error = await networkError { try await net.perform(TestRequest<User>(offline, "/empty")) }
        guard case .invalidRequest(let context) = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(context.reason?.contains("GET /empty") == true)
    }

    @Test(".json encodes with the request's encoder, else the provider's, as a JSON body would be")
    func jsonUsesTheRequestsEncoder() async throws {
        let net = mockManager()
        let created = Date(timeIntervalSince1970: 1_700_000_000)
        net.mocks.register(.get, "/items/1", .json(Item(id: 1, createdAt: created)))
        let provider = SnakeCaseProvider(port: offline.port)
        #expect(try await net.perform(TestRequest<Item>(provider, "/items/1")) == Item(id: 1, createdAt: created))
        let raw = try await net.perform(TestRequest<Data>(provider, "/items/1"))
        #expect(String(decoding: raw, as: UTF8.self).contains("\"created_at\":\"2023-11-14T22:13:20Z\""))

        // The request's own encoder wins over the provider's.
        let request = TestRequest<Data>(provider, "/items/1")
        request.jsonEncoder = JSONEncoder()
        let plain = String(decoding: try await net.perform(request), as: UTF8.self)
        #expect(plain.contains("\"createdAt\":") && !plain.contains("created_at"))
    }

    @Test("A .json value the encoder refuses is .invalidRequest naming the registration")
    func unencodableJSONIsAClearError() async throws {
        let net = mockManager()
        net.mocks.register(.get, "/nan", .json(Double.nan))
        let error = await networkError { try await net.perform(TestRequest<Double>(offline, "/nan")) }
        guard case .invalidRequest(let context) = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(context.reason?.contains("the mock registered for GET /nan") == true)
        #expect(context.underlyingError is EncodingError)
    }

    @Test(".data answers with exactly its bytes, status and headers")
    func dataAnswersExactly() async throws {
        let net = mockManager()
        let bytes = Data([0x89, 0x50, 0x4E, 0x47, 0, 255])
        net.mocks.register(.get, "/avatar", .data(bytes, status: 203, headers: ["Content-Type": "image/png", "X-Trace": "abc"]))
        let raw = try await net.perform(TestRequest<RawResponse>(RawResponseProvider(port: offline.port), "/avatar"))
        #expect(raw.body == bytes)
        #expect(raw.statusCode == 203)
        #expect(raw.headers == ["Content-Type": "image/png", "X-Trace": "abc"])
        #expect(raw.isMocked)
    }

    @Test("A delay is waited for; longer than the request's timeout it times out at the timeout", .measuring)
    func delayIsHonoured() async throws {
        let net = mockManager()
        net.mocks.register(.get, "/slow", .data(Data("{}".utf8), delay: .milliseconds(300)))
        let (_, elapsed) = try await measure { try await net.perform(TestRequest<EmptyResponse>(offline, "/slow")) }
        #expect(elapsed >= .milliseconds(300))

        net.mocks.register(.get, "/slower", .json(User(id: 1, name: "late"), delay: .seconds(20)))
        let (error, waited) = await measure { await networkError { try await net.perform(TestRequest<User>(offline, "/slower", timeout: 0.2)) } }
        #expect(error?.caseName == "timeOut")
        #expect(waited >= .milliseconds(200) && waited < .seconds(10))
    }

    @Test("A delay below zero or above an hour, or a status outside 100...599, is .invalidRequest at once", .measuring,
          arguments: [MockResponse.data(Data(), delay: .seconds(-1)), .json(1, delay: .seconds(3601)),
                      .json(1, delay: .seconds(Int64.max)), .status(99), .status(600), .status(-1), .status(Int.max),
                      .json(1, status: Int.min)])
    func hostileValuesAreClearErrors(response: MockResponse) async throws {
        let net = mockManager()
        net.mocks.register(.get, "/hostile", response)
        let (error, elapsed) = await measure {
            await networkError { try await net.perform(TestRequest<Int>(offline, "/hostile", timeout: .seconds(Int64.max))) }
        }
        #expect(error?.caseName == "invalidRequest", "\(String(describing: error))")
        #expect(elapsed < .seconds(5))
    }

    @Test("A registered failure is the same NetworkError case a live one is, its reason saying it was mocked",
          arguments: [NetworkError.reachability, .timeOut, .invalidCertificate, .transport, .cancelled])
    func registeredFailureIsTheLiveCase(failure: NetworkError) async throws {
        let net = mockManager()
        net.mocks.register(.get, "/down", .failure(failure))
        let error = await networkError { try await net.perform(TestRequest<User>(offline, "/down")) }
        #expect(error?.caseName == failure.caseName)
        #expect(error?.context?.reason == "a mocked failure, from the mock registered for GET /down")
        #expect(error?.context?.request == "GET http://127.0.0.1:\(offline.port ?? 0)/down")
        #expect(error?.errorDescription?.contains("a mocked failure") == true)
    }

    @Test("A registered failure keeps its own reason and context; one without a context is thrown as it is")
    func registeredFailureKeepsItsContext() async throws {
        let net = mockManager()
        net.mocks.register(.get, "/a", .failure(.timeOut(.init(reason: "the gateway gave up", statusCode: 504))))
        let error = await networkError { try await net.perform(TestRequest<User>(offline, "/a")) }
        #expect(error?.context?.reason == "the gateway gave up (a mocked failure, from the mock registered for GET /a)")
        #expect(error?.context?.statusCode == 504)

        net.mocks.register(.get, "/b", .failure(.customUser(description: "User deleted", code: 666)))
        let custom = await networkError { try await net.perform(TestRequest<User>(offline, "/b")) }
        guard case .customUser(let description, _, let code) = custom else { Issue.record("got \(String(describing: custom))"); return }
        #expect(description == "User deleted" && code == 666)
    }

    @Test(".status answers with a bare status that goes through the status mapping")
    func statusGoesThroughTheMapping() async throws {
        let net = mockManager()
        net.mocks.register(.delete, "/users/7", .status(204))
        _ = try await net.perform(TestRequest<EmptyResponse>(offline, "/users/7", method: .delete))
        for (status, caseName) in [(401, "unauthorizedAccess"), (403, "unauthorizedAccess"), (404, "notFound"), (504, "timeOut"), (500, "apiError")] {
            net.mocks.register(.get, "/s", .status(status))
            let error = await networkError { try await net.perform(TestRequest<User>(offline, "/s")) }
            #expect(error?.caseName == caseName, "status \(status)")
        }
    }

    @Test("A typed error body in a mocked status decodes as the provider's errorBodyType")
    func typedErrorBodies() async throws {
        let net = mockManager()
        net.mocks.register(.post, "/orders", .status(422, body: Data(#"{"code": 42, "message": "out of stock"}"#.utf8)))
        let error = await networkError { try await net.perform(TestRequest<Item>(ShopProvider(port: offline.port), "/orders", method: .post)) }
        #expect(error?.caseName == "apiError")
        #expect(error?.serverError(as: ShopError.self)?.message == "out of stock")
        #expect(error?.context?.response?.isMocked == true)
    }

    @Test("The provider's parseAndValidate and the request's validator run on a mock registered in code")
    func validationRunsOnCodeMocks() async throws {
        let net = mockManager()
        net.mocks.register(.get, "/users/7", .json(User(id: 7, name: "Ada")))
        let error = await networkError { try await net.perform(TestRequest<User>(PickyProvider(port: offline.port), "/users/7")) }
        guard case .customUser(_, _, let code) = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(code == 777)

        let request = TestRequest<User>(offline, "/users/7")
        request.validator = { response in if response.isMocked { throw OrderHeld(reason: "mocked") } }
        let refused = await networkError { try await net.perform(request) }
        #expect(refused?.caseName == "validation")
        #expect(refused?.underlyingError is OrderHeld)
    }

    @Test(".file answers from the mock directory with its sidecar; a missing one is .mockNotFound naming it")
    func fileAnswersFromTheMockDirectory() async throws {
        let net = makeManager(mocks: fixtureMocks)
        net.mocks.register(.get, "/me", .file("User"))
        #expect(try await net.perform(TestRequest<User>(offline, "/me")) == User(id: 7, name: "Ada"))
        net.mocks.register(.get, "/me", .file("NotFound"))  // its sidecar says 404
        #expect(await networkError { try await net.perform(TestRequest<User>(offline, "/me")) }?.caseName == "notFound")

        net.mocks.register(.get, "/me", .file("NoSuchMock"))
        let error = await networkError { try await net.perform(TestRequest<User>(offline, "/me")) }
        guard case .mockNotFound(let text) = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(text.contains(fixtureMocks.appendingPathComponent("NoSuchMock.json").path))
        #expect(text.contains("GET /me"))

        net.mocks.register(.get, "/me", .file("../User"))
        let refused = await networkError { try await net.perform(TestRequest<User>(offline, "/me")) }
        guard case .invalidRequest(let context) = refused else { Issue.record("got \(String(describing: refused))"); return }
        #expect(context.reason?.contains("refused") == true)
    }

    @Test("Lookup order: the request's class, then method and path, then mockedResponseFilename, then the METHOD/path file")
    func lookupOrder() async throws {
        let mocks = try MockDirectory()
        defer { mocks.remove() }
        try mocks.write("Named", body: #"{"id": 3, "name": "mockedResponseFilename"}"#)
        try mocks.write("GET/users/7", body: #"{"id": 4, "name": "METHOD/path file"}"#)
        let net = makeManager(mocks: mocks.url)
        let request = { MockedRequest<User>(self.offline, "/users/7", mock: "Named") }
        net.mocks.register(MockedRequest<User>.self) { _ in .json(User(id: 1, name: "class")) }
        net.mocks.register(.get, "/users/7", .json(User(id: 2, name: "method and path")))
        #expect(try await net.perform(request()).id == 1)
        net.mocks.removeAll()
        net.mocks.register(.get, "/users/7", .json(User(id: 2, name: "method and path")))
        #expect(try await net.perform(request()).id == 2)
        net.mocks.removeAll()
        #expect(try await net.perform(request()).id == 3)
        try FileManager.default.removeItem(atPath: mocks.path(of: "Named"))
        #expect(try await net.perform(request()).id == 4)
    }

    @Test(".mockNotFound names every place looked in, in order")
    func mockNotFoundNamesEveryPlace() async throws {
        let mocks = try MockDirectory()
        defer { mocks.remove() }
        let error = await networkError {
            try await makeManager(mocks: mocks.url).perform(MockedRequest<User>(offline, "/users/7?x=1", mock: "Named"))
        }
        guard case .mockNotFound(let text) = error else { Issue.record("got \(String(describing: error))"); return }
        let places = [mocks.path(of: "Named"), mocks.path(of: "GET/users/7"), "MockedRequest<User>", "GET /users/7"]
        let positions = try places.map { place in try #require(text.range(of: place), "\(place) in \(text)").lowerBound }
        #expect(positions == positions.sorted(), "\(text)")
        #expect(error?.errorDescription?.contains(text) == true)
    }

    @Test("removeAll removes the registrations and the recorded requests")
    func removeAllRemovesEverything() async throws {
        let net = mockManager()
        net.mocks.register(.get, "/users/7", .json(User(id: 7, name: "Ada")))
        net.mocks.register(ProfileRequest.self) { _ in .json(Profile(name: "Ada")) }
        _ = try await net.perform(TestRequest<User>(offline, "/users/7"))
        _ = try await net.perform(ProfileRequest(offline))
        #expect(net.mocks.requests.count == 2)
        net.mocks.removeAll()
        #expect(net.mocks.requests.isEmpty)
        #expect(await networkError { try await net.perform(TestRequest<User>(offline, "/users/7")) }?.caseName == "mockNotFound")
        #expect(await networkError { try await net.perform(ProfileRequest(offline)) }?.caseName == "mockNotFound")
    }

    @Test("With mock mode off, registrations are not used and nothing is recorded")
    func registrationsNeedMockMode() async throws {
        let net = makeManager()
        net.mocks.register(.get, "/users/7", .json(User(id: 7, name: "Ada")))
        let error = await networkError { try await net.perform(TestRequest<User>(offline, "/users/7", timeout: 5)) }
        #expect(error?.caseName == "reachability")
        #expect(net.mocks.requests.isEmpty)
    }

    @Test("A request answered by a mock in code is logged, marked MOCK")
    func codeMocksAreLoggedAsMocks() async throws {
        let log = LogCollector()
        let net = mockManager(log: log)
        net.mocks.register(.get, "/users/7", .json(User(id: 7, name: "Ada")))
        _ = try await net.perform(TestRequest<User>(offline, "/users/7"))
        #expect(log.text.contains("→ GET http://127.0.0.1:\(offline.port ?? 0)/users/7 [MOCK]"))
        #expect(log.text.contains("← 200 GET"))
        #expect(log.text.contains("[MOCK]\n") && log.text.contains("\"Ada\""))
    }

    @Test("Parallel tests, each with its own manager, see only their own registrations and requests")
    func managersAreIsolated() async throws {
        let offline = self.offline
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                group.addTask {
                    let net = makeManager(mocks: URL(fileURLWithPath: "/nonexistent-mock-directory"))
                    net.mocks.register(.get, "/users/7", .json(User(id: index, name: "manager \(index)")))
                    for _ in 0..<25 {
                        let user = try await net.perform(TestRequest<User>(offline, "/users/7", headers: ["X-Manager": "\(index)"]))
                        #expect(user.id == index)
                    }
                    let requests = net.mocks.requests
                    #expect(requests.count == 25)
                    #expect(requests.allSatisfy { $0.value(forHeader: "X-Manager") == "\(index)" })
                }
            }
            try await group.waitForAll()
        }
    }
}
