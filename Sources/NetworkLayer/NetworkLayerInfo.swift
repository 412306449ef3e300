/// Facts about the library itself.
public enum NetworkLayerInfo {
    /// The version of NetworkLayer, as released (the newest in `CHANGELOG.md`). Sent in the
    /// `User-Agent` (`NetworkLayer/<version>`) unless a request sets its own.
    public static let version = "2.0.0"
}
