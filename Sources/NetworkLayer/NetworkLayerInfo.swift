/// Facts about the library itself.
public enum NetworkLayerInfo {
    /// The version of NetworkLayer, as released: `major.minor.patch` under semantic versioning,
    /// the newest version in `CHANGELOG.md`.
    ///
    /// Every request says it in its `User-Agent` (`NetworkLayer/<version>`) unless the request
    /// sets its own. Between two releases it is the last one: the changes since are listed under
    /// "Unreleased" in the changelog.
    ///
    /// ```swift
    /// logger.info("starting", metadata: ["networklayer": "\(NetworkLayerInfo.version)"])
    /// ```
    public static let version = "2.0.0"
}
