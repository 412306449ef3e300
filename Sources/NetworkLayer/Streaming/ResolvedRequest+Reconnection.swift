import Foundation

extension ResolvedRequest {
    /// This request as an event stream's reconnection sends it: `Last-Event-ID` set to
    /// `lastEventID` (any the request had replaced), removed for an empty one (the stream reset
    /// its id), left as the request had it for `nil` (the stream never sent one). No progress
    /// reporting: the caller's was for the first request.
    func reconnecting(lastEventID: String?) -> ResolvedRequest {
        var headers = additionalHeaders
        if let lastEventID {
            for name in headers.keys where SecretNames.folded(name) == "last-event-id" { headers[name] = nil }
            if !lastEventID.isEmpty { headers["Last-Event-ID"] = lastEventID }
        }
        return ResolvedRequest(
            requestClass: requestClass, provider: provider, location: location, method: method, target: target,
            parameters: parameters, body: body, parameterEncoding: parameterEncoding, arrayEncoding: arrayEncoding,
            jsonEncoder: jsonEncoder, additionalHeaders: headers, authentication: authentication, secretNames: secretNames,
            timeout: timeout, retryPolicy: retryPolicy, redirectPolicy: redirectPolicy, interceptors: interceptors,
            middlewares: middlewares, networkMiddlewares: networkMiddlewares, options: options, expectations: expectations, validator: validator, streamKind: streamKind,
            downloadDestination: downloadDestination, resumesDownloads: resumesDownloads, progress: nil, isMocked: isMocked,
            mockedResponseFilename: mockedResponseFilename, mockResponsesDirectory: mockResponsesDirectory,
            mockRecordingDirectory: mockRecordingDirectory, log: log, cache: cache, bodyCompression: bodyCompression, reconnectPolicy: reconnectPolicy,
            events: events)
    }
}
