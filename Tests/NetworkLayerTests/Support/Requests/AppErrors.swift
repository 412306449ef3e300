// Errors of the application's own types, as validators, providers and hooks throw them.

/// An error of the application's own type, as a validator or a provider throws it.
struct AppRejection: Error, Equatable {
    let status: Int
    let marker: String?
}

/// An error of the application's own type from a request-side hook (headers, adapt).
struct AppHookFailure: Error, Equatable {
    let step: String
}

/// An error a request's validator throws, as an app would define it.
struct OrderHeld: Error, Equatable {
    let reason: String
}
