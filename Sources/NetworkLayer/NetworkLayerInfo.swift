/// Facts about the library itself.
public enum NetworkLayerInfo {
    /// The version of NetworkLayer, as released (the newest in `CHANGELOG.md`; between releases,
    /// the last one). Sent in the `User-Agent` (`NetworkLayer/<version>`) unless a request sets its own.
    ///
    /// ```swift
    /// logger.info("starting", metadata: ["networklayer": "\(NetworkLayerInfo.version)"])
    /// ```
    public static let version = "2.0.0"
}
