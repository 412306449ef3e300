/// Every fuzz target. Adding one is a line here, its check in a file of its own, and a folder of
/// seed inputs in `Tests/Fuzz/Corpus/<name>/`: `make fuzz` and the regression tests find it.
public enum FuzzTargets {
    public static let all: [FuzzTarget] = [
        FuzzTarget("json-decoder", JSONDecoderFuzz.check),
        FuzzTarget("response-headers", ResponseHeadersFuzz.check),
        FuzzTarget("retry-after", RetryAfterFuzz.check),
        FuzzTarget("parameters", ParametersFuzz.check),
        FuzzTarget("mock-sidecar", MockSidecarFuzz.check),
        FuzzTarget("event-stream", EventStreamFuzz.check),
        FuzzTarget("redirect-origin", RedirectOriginFuzz.check),
        FuzzTarget("event-stream-rules", EventStreamRulesFuzz.check),
        FuzzTarget("cache-control", CacheControlFuzz.check),
        FuzzTarget("cache-response", CacheResponseFuzz.check),
        FuzzTarget("cache-files", CacheFilesFuzz.check),
        FuzzTarget("resume-data", ResumeDataFuzz.check),
        FuzzTarget("websocket-frames", WebSocketFramesFuzz.check),
        FuzzTarget("websocket-inflate", WebSocketInflateFuzz.check),
        FuzzTarget("origin-prefix", OriginPrefixFuzz.check),
        FuzzTarget("har-text", HARTextFuzz.check),
        FuzzTarget("websocket-extensions", WebSocketExtensionsFuzz.check),
        FuzzTarget("text-lines", TextLinesFuzz.check),
        FuzzTarget("websocket-handshake", WebSocketHandshakeFuzz.check),
        FuzzTarget("chunk-scrubber", ChunkScrubberFuzz.check),
        FuzzTarget("pinning-report", PinningReportFuzz.check),
        FuzzTarget("drift-report", DriftReportFuzz.check),
        FuzzTarget("websocket-script", WebSocketScriptFuzz.check),
    ]

    public static func named(_ name: String) -> FuzzTarget? {
        all.first { $0.name == name }
    }
}
