import Foundation

extension NetworkManager {
    /// Whether this manager records its network traffic in ``recordedTraffic``, to export it as
    /// HAR. Default `false`. Read when a request starts; what was recorded stays until
    /// ``RecordedTraffic/removeAll()``.
    ///
    /// ```swift
    /// Net.recordsTraffic = true
    /// let har: Data = try Net.recordedTraffic.har()
    /// ```
    public var recordsTraffic: Bool {
        get { settings.withLock { $0.recordsTraffic } }
        set { settings.withLock { $0.recordsTraffic = newValue } }
    }

    /// The exchanges recorded while ``recordsTraffic`` was on, redacted and bounded. See ``RecordedTraffic``.
    public var recordedTraffic: RecordedTraffic {
        settings.withLock { $0.recordedTraffic }
    }
}
