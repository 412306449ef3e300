import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// A provider that sets every setting a provider can, for the precedence table.
struct SettingProvider: ServiceProvider {
    var host = "api.example.com"
    var httpScheme = HTTPScheme.https
    var retryPolicy: RetryPolicy?
    var redirectPolicy: RedirectPolicy?
    var interceptors: [any RequestInterceptor] = []
    var acceptableStatusCodes: Range<Int> = 200..<300
    var jsonDecoder = JSONDecoder()
    var jsonEncoder = JSONEncoder()
    var usesFastJSONDecoder = true
    var errorBodyType: (any ServerErrorBody.Type)?
    var authentication: Authentication?
    var secretHeaderNames: Set<String> = []
    var secretQueryItemNames: Set<String> = []
    var areMocksEnabled: Bool?
    var proxy: ProxyConfiguration?
    var unixSocketPath: String?
    var timeouts: Timeouts?
    var httpVersion: HTTPVersion?
    var cachePolicy: CachePolicy?
    var cachesAuthorizedResponsesOnDisk = false
}

struct ProviderError: ServerErrorBody { var message: String? }
struct RequestError: ServerErrorBody { var message: String? }

/// Every row of the precedence table (request › provider › manager › default), proved on the one
/// function that resolves them (`BaseRequest.resolved(with:)`): each test sets the row at every
/// level and takes them away one by one.
@Suite("Settings resolve once: request › provider › manager › default", .sharing)
struct PrecedenceTests {
    func resolve(_ provider: SettingProvider, _ configure: (TestRequest<Echo>) -> Void = { _ in },
                 manager: (inout Settings) -> Void = { _ in }) -> ResolvedRequest {
        let request = TestRequest<Echo>(provider, "/x")
        configure(request)
        var settings = Settings()
        manager(&settings)
        return request.resolved(with: settings)
    }

    @Test("requestTimeout: the request's, else 60 s")
    func timeout() {
        #expect(resolve(SettingProvider()).timeout == TestTimeout.seconds(10))  // TestRequest's own default
        #expect(resolve(SettingProvider()) { $0.requestTimeout = .seconds(3) }.timeout == 3)
        #expect(BaseRequest<Echo>(serviceProvider: SettingProvider(), endpoint: "/").resolved().timeout == 60)
    }

    @Test("connect and idle timeouts: the provider's, else the manager's, part by part; the whole-request one: the request's own, else the provider's, else the manager's, else 60 s")
    func timeouts() {
        // A plain BaseRequest: TestRequest sets its own timeout.
        var settings = Settings()
        settings.timeouts = Timeouts(connect: .seconds(5), request: .seconds(50), idle: .seconds(20))
        var provider = SettingProvider()
        var resolved = BaseRequest<Echo>(serviceProvider: provider, endpoint: "/").resolved(with: settings)
        #expect(resolved.options.connectTimeout == 5)
        #expect(resolved.options.idleTimeout == 20)
        #expect(resolved.timeout == 50)
        provider.timeouts = Timeouts(connect: .seconds(2), request: .seconds(30))
        let request = BaseRequest<Echo>(serviceProvider: provider, endpoint: "/")
        resolved = request.resolved(with: settings)
        #expect(resolved.options.connectTimeout == 2)
        #expect(resolved.options.idleTimeout == 20)
        #expect(resolved.timeout == 30)
        request.requestTimeout = .seconds(7)
        #expect(request.resolved(with: settings).timeout == 7)
        #expect(BaseRequest<Echo>(serviceProvider: SettingProvider(), endpoint: "/").resolved().timeout == 60)
        #expect(resolve(SettingProvider()).options.connectTimeout == nil)
    }

    @Test("HTTP version: the provider's, else the manager's, else automatic")
    func httpVersion() {
        #expect(resolve(SettingProvider()).options.table.httpVersion == .automatic)
        #expect(resolve(SettingProvider(), manager: { $0.table.httpVersion = .http1_1 }).options.table.httpVersion == .http1_1)
        var provider = SettingProvider()
        provider.httpVersion = .http2PriorKnowledge
        #expect(resolve(provider, manager: { $0.table.httpVersion = .http1_1 }).options.table.httpVersion == .http2PriorKnowledge)
    }

    @Test("retry policy: the request's, else the provider's, else none")
    func retryPolicy() {
        let provider = SettingProvider(retryPolicy: RetryPolicy(maximumAttempts: 2))
        #expect(resolve(SettingProvider()).retryPolicy == nil)
        #expect(resolve(provider).retryPolicy?.maximumAttempts == 2)
        #expect(resolve(provider) { $0.retryPolicy = RetryPolicy(maximumAttempts: 5) }.retryPolicy?.maximumAttempts == 5)
    }

    @Test("redirect policy: the request's, else the provider's, else the manager's, else follow up to 10")
    func redirectPolicy() {
        func limit(_ resolved: ResolvedRequest) -> Int? {
            if case .follow = resolved.redirectPolicy { return resolved.redirectPolicy.limit }
            return nil
        }
        #expect(limit(resolve(SettingProvider())) == 10)
        #expect(limit(resolve(SettingProvider()) { _ in } manager: { $0.redirectPolicy = .follow(maximum: 4) }) == 4)
        let provider = SettingProvider(redirectPolicy: .follow(maximum: 3))
        #expect(limit(resolve(provider) { _ in } manager: { $0.redirectPolicy = .follow(maximum: 4) }) == 3)
        #expect(limit(resolve(provider) { $0.redirectPolicy = .follow(maximum: 2) } manager: { $0.redirectPolicy = .follow(maximum: 4) }) == 2)
    }

    @Test("interceptors: the manager's, the provider's and the request's, each kept apart, in that order")
    func interceptors() {
        let calls = CallRecorder<String>()
        let provider = SettingProvider(interceptors: [NamedInterceptor(name: "p", calls: calls)])
        let resolved = resolve(provider) { $0.interceptors = [NamedInterceptor(name: "r", calls: calls)] }
            manager: { $0.interceptors = [NamedInterceptor(name: "m", calls: calls)] }
        func names(_ list: [any RequestInterceptor]) -> [String] { list.compactMap { ($0 as? NamedInterceptor)?.name } }
        #expect(names(resolved.interceptors.manager) == ["m"])
        #expect(names(resolved.interceptors.provider) == ["p"])
        #expect(names(resolved.interceptors.request) == ["r"])
    }

    @Test("acceptable statuses: the request's set, else its range, else the provider's set (by default its range), else 200..<300")
    func statuses() {
        #expect(resolve(SettingProvider()).expectations.acceptableStatuses == StatusCodes(200..<300))
        let provider = SettingProvider(acceptableStatusCodes: 200..<400)
        #expect(resolve(provider).expectations.acceptableStatuses == StatusCodes(200..<400))
        #expect(resolve(provider) { $0.acceptableStatusCodes = 200..<201 }.expectations.acceptableStatuses == StatusCodes(200..<201))
        let both = resolve(provider) { $0.acceptableStatusCodes = 200..<201; $0.acceptableStatuses = StatusCodes(200..<300, 304) }
        #expect(both.expectations.acceptableStatuses == StatusCodes(200..<300, 304))
    }

    @Test("decoder and encoder: the request's, else the provider's")
    func coders() {
        let (providerDecoder, requestDecoder) = (JSONDecoder(), JSONDecoder())
        let (providerEncoder, requestEncoder) = (JSONEncoder(), JSONEncoder())
        let provider = SettingProvider(jsonDecoder: providerDecoder, jsonEncoder: providerEncoder)
        #expect(resolve(provider).expectations.decoder === providerDecoder)
        #expect(resolve(provider).jsonEncoder === providerEncoder)
        let resolved = resolve(provider) { $0.jsonDecoder = requestDecoder; $0.jsonEncoder = requestEncoder }
        #expect(resolved.expectations.decoder === requestDecoder)
        #expect(resolved.jsonEncoder === requestEncoder)
    }

    @Test("FastJSON: only when both the provider and the manager allow it")
    func fastJSON() {
        #expect(resolve(SettingProvider()).expectations.usesFastJSONDecoder)
        #expect(!resolve(SettingProvider(usesFastJSONDecoder: false)).expectations.usesFastJSONDecoder)
        #expect(!resolve(SettingProvider()) { _ in } manager: { $0.usesFastJSONDecoder = false }.expectations.usesFastJSONDecoder)
    }

    @Test("error body type: the request's, else the provider's, else none")
    func errorBody() {
        #expect(resolve(SettingProvider()).expectations.errorBodyType == nil)
        let provider = SettingProvider(errorBodyType: ProviderError.self)
        #expect(resolve(provider).expectations.errorBodyType == ProviderError.self)
        #expect(resolve(provider) { $0.errorBodyType = RequestError.self }.expectations.errorBodyType == RequestError.self)
    }

    @Test("authentication: the provider's, unless the request opts out")
    func authentication() {
        let provider = SettingProvider(authentication: .bearer("t"))
        #expect(resolve(SettingProvider()).authentication == nil)
        #expect(resolve(provider).authentication != nil)
        #expect(resolve(provider) { $0.requiresAuthentication = false }.authentication == nil)
    }

    @Test("secret names: the union of the request's, the provider's and the manager's")
    func secretNames() {
        let provider = SettingProvider(secretHeaderNames: ["X-P"], secretQueryItemNames: ["p"])
        let resolved = resolve(provider) { $0.secretHeaderNames = ["X-R"]; $0.secretQueryItemNames = ["r"] }
            manager: { $0.redactor = Redactor(names: SecretNames(headers: ["X-M"], queryItems: ["m"])) }
        #expect(resolved.secretNames.headers == ["x-p", "x-r", "x-m"])
        #expect(resolved.secretNames.queryItems == ["p", "r", "m"])
    }

    @Test("mocks: the provider's choice, else the manager's, else live")
    func mocks() {
        #expect(!resolve(SettingProvider()).isMocked)
        #expect(resolve(SettingProvider()) { _ in } manager: { $0.areMocksEnabled = true }.isMocked)
        #expect(!resolve(SettingProvider(areMocksEnabled: false)) { _ in } manager: { $0.areMocksEnabled = true }.isMocked)
        #expect(resolve(SettingProvider(areMocksEnabled: true)).isMocked)
        // Record mode writes live responses only.
        #expect(resolve(SettingProvider(areMocksEnabled: true)) { _ in } manager: { $0.mockRecordingDirectory = URL(fileURLWithPath: "/tmp") }
            .mockRecordingDirectory == nil)
    }

    @Test("proxy: the provider's, else the manager's, else the environment's; the Unix socket is the provider's")
    func routing() {
        #expect(resolve(SettingProvider()).options.table.proxy == .environment)
        let proxy = ProxyConfiguration.http(URL(string: "http://m.example:1")!)
        let manager: (inout Settings) -> Void = { $0.table.proxy = proxy }
        #expect(resolve(SettingProvider(), manager: manager).options.table.proxy == proxy)
        #expect(resolve(SettingProvider(proxy: ProxyConfiguration.none), manager: manager).options.table.proxy == ProxyConfiguration.none)
        #expect(resolve(SettingProvider()).options.unixSocketPath == nil)
        #expect(resolve(SettingProvider(unixSocketPath: "/run/x.sock")).options.unixSocketPath == "/run/x.sock")
    }

    @Test("response size and decompression limit: the request's, else the manager's, else none and .standard")
    func limits() {
        #expect(resolve(SettingProvider()).options.table.maximumResponseSize == nil)
        #expect(resolve(SettingProvider()).options.table.decompressionLimit == .standard)
        let manager: (inout Settings) -> Void = { $0.table.maximumResponseSize = 100; $0.table.decompressionLimit = .ratio(10, floor: 1) }
        #expect(resolve(SettingProvider(), manager: manager).options.table.maximumResponseSize == 100)
        #expect(resolve(SettingProvider(), manager: manager).options.table.decompressionLimit == .ratio(10, floor: 1))
        let resolved = resolve(SettingProvider(), { $0.maximumResponseSize = 5; $0.decompressionLimit = .ratio(2, floor: 1) }, manager: manager)
        #expect(resolved.options.table.maximumResponseSize == 5)
        #expect(resolved.options.table.decompressionLimit == .ratio(2, floor: 1))
    }

    @Test("pins, the CA bundle and the cookie store: the manager's")
    func managerOnly() throws {
        let bundle = URL(fileURLWithPath: "/tmp/ca.pem")
        let jar = try CookieJar(file: nil)
        let resolved = resolve(SettingProvider()) { _ in } manager: { $0.customCABundle = bundle; $0.cookieJar = jar }
        #expect(resolved.options.customCABundle == bundle)
        #expect(resolved.options.cookieJar === jar)
        #expect(resolve(SettingProvider()).options.pinning == nil)
    }

    @Test("response cache: the manager's, none in mock mode")
    func responseCache() throws {
        let store = try #require(ResponseCacheStore(.memory(limit: 1 << 20)))
        let withCache: (inout Settings) -> Void = { $0.responseCacheStore = store }
        #expect(resolve(SettingProvider()).cache == nil)
        #expect(resolve(SettingProvider(), manager: withCache).cache?.store === store)
        #expect(resolve(SettingProvider(), manager: { withCache(&$0); $0.areMocksEnabled = true }).cache == nil)
        #expect(resolve(SettingProvider(areMocksEnabled: true), manager: withCache).cache == nil)
    }

    @Test("cache policy: the request's, else the provider's, else .useProtocol")
    func cachePolicy() throws {
        let store = try #require(ResponseCacheStore(.memory(limit: 1 << 20)))
        let withCache: (inout Settings) -> Void = { $0.responseCacheStore = store }
        let provider = SettingProvider(cachePolicy: .returnCacheElseLoad)
        #expect(resolve(SettingProvider(), manager: withCache).cache?.policy == .useProtocol)
        #expect(resolve(provider, manager: withCache).cache?.policy == .returnCacheElseLoad)
        #expect(resolve(provider, { $0.cachePolicy = .reloadIgnoringCache }, manager: withCache).cache?.policy == .reloadIgnoringCache)
    }

    @Test("authorized responses on disk: the provider's opt-in, else memory only")
    func authorizedOnDisk() throws {
        let store = try #require(ResponseCacheStore(.memory(limit: 1 << 20)))
        let withCache: (inout Settings) -> Void = { $0.responseCacheStore = store }
        #expect(resolve(SettingProvider(), manager: withCache).cache?.storesAuthorizedResponsesOnDisk == false)
        #expect(resolve(SettingProvider(cachesAuthorizedResponsesOnDisk: true), manager: withCache).cache?.storesAuthorizedResponsesOnDisk == true)
    }

    @Test("the cache is bypassed by streams, downloads and uploads from a sequence, a file or a form; not by bytes or JSON")
    func cacheBypass() throws {
        let store = try #require(ResponseCacheStore(.memory(limit: 1 << 20)))
        var settings = Settings()
        settings.responseCacheStore = store
        func bypassed<Response>(_ request: BaseRequest<Response>) -> Bool? { request.resolved(with: settings).cache?.isBypassed }
        let provider = SettingProvider()
        #expect(bypassed(TestRequest<Echo>(provider, "/x")) == false)
        #expect(bypassed(TestRequest<ByteStream>(provider, "/x")) == true)
        #expect(bypassed(TestRequest<EventStream>(provider, "/x")) == true)
        #expect(bypassed(DownloadRequest(provider, "/x", to: URL(fileURLWithPath: "/tmp/x"))) == true)
        let file = URL(fileURLWithPath: "/tmp/upload")
        #expect(bypassed(BodyRequest<Echo>(provider, "/x", body: .file(file, contentType: "image/png"))) == true)
        #expect(bypassed(BodyRequest<Echo>(provider, "/x", body: .multipart(MultipartFormData().text("a", "b")))) == true)
        #expect(bypassed(BodyRequest<Echo>(provider, "/x", body: .stream(AsyncStream<Data> { $0.finish() }, length: nil))) == true)
        #expect(bypassed(BodyRequest<Echo>(provider, "/x", body: .data(Data("x".utf8), contentType: "text/plain"))) == false)
        #expect(bypassed(BodyRequest<Echo>(provider, "/x", body: .json(object: ["a": 1]))) == false)
    }
}
