import Foundation

/// How long the parts of a request may take; `nil` leaves a part to the next level:
/// ``NetworkManager/timeouts``, then ``ServiceProvider/timeouts``, each part on its own; a
/// request's ``BaseRequest/requestTimeout`` wins for the whole request. Zero or negative is refused
/// with ``NetworkError/invalidRequest(_:)``; beyond 10⁹ s (`.seconds(Int64.max)`, say) means no limit.
public struct Timeouts: Sendable, Equatable {
    /// Until the connection and its TLS handshake are done (``NetworkError/timeOut(_:)`` saying
    /// "connect"). `nil`: libcurl's 300 s.
    public var connectTimeout: Duration?
    /// The whole request, every attempt and redirect included. `nil`: 60 s.
    public var requestTimeout: Duration?
    /// How long a response may send nothing (not a stream: the request timeout bounds its silence).
    /// `nil`: no limit beyond the request's.
    public var idleTimeout: Duration?

    public init(connect: Duration? = nil, request: Duration? = nil, idle: Duration? = nil) {
        connectTimeout = connect
        requestTimeout = request
        idleTimeout = idle
    }

    /// No part set.
    public init() {}

    /// The default request timeout, when no level sets one.
    public static let defaultRequestTimeout: Duration = .seconds(60)
    /// ``defaultRequestTimeout`` as the pipeline keeps it, read without a conversion.
    static let defaultRequestSeconds: TimeInterval = 60
}

extension Timeouts {
    // Disfavoured: `Timeouts(connect: nil)` fits both initializers and takes the Duration one.
    @available(*, deprecated, message: "pass Durations: Timeouts(connect: .seconds(5), request: .seconds(30), idle: .seconds(10))")
    @_disfavoredOverload
    public init(connect: TimeInterval? = nil, request: TimeInterval? = nil, idle: TimeInterval? = nil) {
        self.init(connect: connect.map(Duration.init(clampingSeconds:)), request: request.map(Duration.init(clampingSeconds:)),
                  idle: idle.map(Duration.init(clampingSeconds:)))
    }

    @available(*, deprecated, renamed: "connectTimeout", message: "a Duration: connectTimeout = .seconds(5)")
    public var connect: TimeInterval? {
        get { connectTimeout?.seconds }
        set { connectTimeout = newValue.map(Duration.init(clampingSeconds:)) }
    }

    @available(*, deprecated, renamed: "requestTimeout", message: "a Duration: requestTimeout = .seconds(30)")
    public var request: TimeInterval? {
        get { requestTimeout?.seconds }
        set { requestTimeout = newValue.map(Duration.init(clampingSeconds:)) }
    }

    @available(*, deprecated, renamed: "idleTimeout", message: "a Duration: idleTimeout = .seconds(10)")
    public var idle: TimeInterval? {
        get { idleTimeout?.seconds }
        set { idleTimeout = newValue.map(Duration.init(clampingSeconds:)) }
    }

    @available(*, deprecated, renamed: "defaultRequestTimeout")
    public static var defaultRequest: TimeInterval { defaultRequestTimeout.seconds }
}
