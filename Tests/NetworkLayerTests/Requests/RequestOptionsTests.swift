import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// `BaseRequest` keeps every setting in one stored value, `options`, which `resolved(with:)` and
/// `Settings.Table` read. A public property that stopped writing its own field (stored apart again,
/// or wired to another field) would set something nothing reads: this fails then, and when a field
/// is added to `RequestOptions` without a property setting it here.
@Suite("Every request setting is stored in the request's options", .sharing)
struct RequestOptionsTests {
    typealias Request = BaseRequest<Echo>

    /// Each field of `RequestOptions`: how a caller sets it to something other than its default,
    /// and how a caller reads it back (`nil` for a field with no public getter).
    static var setters: [String: (set: (Request) -> Void, get: ((Request) -> String)?)] { [
        "params": ({ $0.params = ["q": "x"] }, { text($0.params) }),
        "additionalHeaders": ({ $0.additionalHeaders = ["X-A": "1"] }, { text($0.additionalHeaders) }),
        "explicitTimeout": ({ $0.requestTimeout = .seconds(7) }, { text(Optional($0.requestTimeout)) }),
        "httpMethod": ({ $0.httpMethod = .post }, { text($0.httpMethod) }),
        "priority": ({ $0.priority = .high }, { text($0.priority) }),
        "mockedResponseFilename": ({ $0.mockedResponseFilename = "Mock" }, { text($0.mockedResponseFilename) }),
        "operationID": ({ $0.operationID = "getThing" }, { text($0.operationID) }),
        "body": ({ $0.body = .data(Data([1])) }, { text($0.body) }),
        "parameterEncoding": ({ $0.parameterEncoding = .form }, { text($0.parameterEncoding) }),
        "arrayEncoding": ({ $0.arrayEncoding = .brackets }, { text($0.arrayEncoding) }),
        "jsonEncoder": ({ $0.jsonEncoder = JSONEncoder() }, { text($0.jsonEncoder) }),
        "jsonDecoder": ({ $0.jsonDecoder = JSONDecoder() }, { text($0.jsonDecoder) }),
        "keyPath": ({ $0.keyPath = "data.items" }, { text($0.keyPath) }),
        "acceptableStatusCodes": ({ $0.acceptableStatusCodes = 200..<205 }, { text($0.acceptableStatusCodes) }),
        "acceptableStatuses": ({ $0.acceptableStatuses = StatusCodes(200..<300, 304) }, { text($0.acceptableStatuses) }),
        "validator": ({ $0.validator = { _ in } }, { text($0.validator) }),
        "errorBodyType": ({ $0.errorBodyType = RequestError.self }, { text($0.errorBodyType) }),
        "requiresAuthentication": ({ $0.requiresAuthentication = false }, { text($0.requiresAuthentication) }),
        "secretHeaderNames": ({ $0.secretHeaderNames = ["X-Key"] }, { text($0.secretHeaderNames) }),
        "secretQueryItemNames": ({ $0.secretQueryItemNames = ["key"] }, { text($0.secretQueryItemNames) }),
        "retryPolicy": ({ $0.retryPolicy = RetryPolicy(maximumAttempts: 2) }, { text($0.retryPolicy) }),
        "reconnectPolicy": ({ $0.reconnectPolicy = .eventSource() }, { text($0.reconnectPolicy) }),
        "downloadDestination": ({ $0.downloadDestination = URL(fileURLWithPath: "/tmp/file") }, { text($0.downloadDestination) }),
        "webSocketProtocols": ({ $0.webSocketProtocols = ["chat"] }, { text($0.webSocketProtocols) }),
        "webSocketOptions": ({ $0.webSocketOptions = WebSocketOptions(maximumMessageSize: 1_000) }, { text($0.webSocketOptions) }),
        "resumesDownloads": ({ $0.resumesDownloads = true }, { text($0.resumesDownloads) }),
        "maximumResponseSize": ({ $0.maximumResponseSize = 1_000 }, { text($0.maximumResponseSize) }),
        "decompressionLimit": ({ $0.decompressionLimit = DecompressionLimit.none }, { text($0.decompressionLimit) }),
        "sendsPathAsIs": ({ $0.sendsPathAsIs = true }, { text($0.sendsPathAsIs) }),
        "onProgress": ({ $0.onProgress = { _ in } }, { text($0.onProgress) }),
        "progressFinished": ({ _ = $0.progressUpdates() }, nil),
        "interceptors": ({ $0.interceptors = [LateHeader()] }, { text($0.interceptors) }),
        "bodyCompression": ({ $0.bodyCompression = BodyCompression.gzip }, { text($0.bodyCompression) }),
        "middlewares": ({ $0.middlewares = [ClosureMiddleware { request, next throws(NetworkError) in try await next(request) }] },
                        { text($0.middlewares) }),
        "redirectPolicy": ({ $0.redirectPolicy = RedirectPolicy.none }, { text($0.redirectPolicy) }),
        "cachePolicy": ({ $0.cachePolicy = .reloadIgnoringCache }, { text($0.cachePolicy) }),
        "hedging": ({ $0.hedging = .after(.duration(.seconds(1))) }, { text($0.hedging) }),
    ] }

    /// `progressUpdates()` sets both of the progress fields.
    static let alsoChanged = ["progressFinished": "onProgress"]

    /// What `Mirror` shows of a field: an optional value as `Optional(...)`, as the field holds it.
    static func text<Value>(_ value: Value) -> String { String(describing: value) }

    static func fields(_ request: Request) -> [String: String] {
        Dictionary(uniqueKeysWithValues: Mirror(reflecting: request.options).children.map { (String($0.label ?? "?"), String(describing: $0.value)) })
    }

    @Test("Each public property writes its own field of RequestOptions, reads it back, and every field has one")
    func eachPropertyWritesItsField() {
        let untouched = Self.fields(Request(serviceProvider: SettingProvider(), endpoint: "/"))
        #expect(untouched.count >= 37, "Mirror found \(untouched.count) fields: the check would check nothing")
        let setters = Self.setters
        #expect(Set(untouched.keys) == Set(setters.keys),
                "fields without a property here: \(Set(untouched.keys).subtracting(setters.keys).sorted()); names that are no field: \(Set(setters.keys).subtracting(untouched.keys).sorted())")
        for (name, accessors) in setters {
            let request = Request(serviceProvider: SettingProvider(), endpoint: "/")
            accessors.set(request)
            let fields = Self.fields(request)
            let changed = Set(fields.keys.filter { fields[$0] != untouched[$0] })
            #expect(changed == Set([name] + (Self.alsoChanged[name].map { [$0] } ?? [])), "setting \(name) changed \(changed.sorted())")
            if let get = accessors.get {
                #expect(get(request) == fields[name], "\(name) reads back \(get(request)), its field holds \(fields[name] ?? "nothing")")
            }
        }
    }

    /// The rows `PrecedenceTests` does not prove: settings the resolved request takes from the request alone.
    @Test("Each setting only a request has reaches the resolved request")
    func requestOnlySettingsAreResolved() throws {
        let request = Request(serviceProvider: SettingProvider(), endpoint: "/x")
        request.params = ["q": "x"]
        request.additionalHeaders = ["X-A": "1"]
        request.mockedResponseFilename = "Mock"
        request.operationID = "getThing"
        request.parameterEncoding = .form
        request.arrayEncoding = .brackets
        request.keyPath = "data.items"
        request.validator = { _ in }
        request.priority = .high
        request.hedging = .after(.duration(.seconds(1)))
        request.onProgress = { _ in }
        request.middlewares = [ClosureMiddleware { request, next throws(NetworkError) in try await next(request) }]
        var settings = Settings()
        settings.maximumRequestsPerOrigin = .fixed(2)
        var resolved = request.resolved(with: settings)
        guard case .object(let members) = try resolved.parameters.get() else { Issue.record("params are not an object"); return }
        #expect(members.map(\.key) == ["q"])
        #expect(resolved.additionalHeaders == ["X-A": "1"] && resolved.mockedResponseFilename == "Mock" && resolved.operationID == "getThing")
        #expect(resolved.parameterEncoding == .form && resolved.arrayEncoding == .brackets && resolved.expectations.keyPath == "data.items")
        #expect(resolved.validator != nil && resolved.progress != nil && resolved.middlewares.count == 1)
        #expect(resolved.originLimit?.priority == .high && resolved.hedging == .after(.duration(.seconds(1))))

        request.httpMethod = .put
        request.body = .data(Data([1]))
        request.bodyCompression = .gzip
        request.downloadDestination = URL(fileURLWithPath: "/tmp/file")
        request.resumesDownloads = true
        resolved = request.resolved(with: settings)
        #expect(resolved.method == .put && resolved.body != nil && resolved.bodyCompression == .gzip)
        #expect(resolved.downloadDestination == URL(fileURLWithPath: "/tmp/file") && resolved.resumesDownloads)
        #expect(resolved.hedging == nil, "hedging is for a GET or HEAD without a body")
    }
}
