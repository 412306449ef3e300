import Foundation

extension NetworkManager {
    /// Whether this manager records its traffic in ``recordedTraffic``, to export it as HAR. Default `false`.
    public var recordsTraffic: Bool {
        get { settings.withLock { $0.recordsTraffic } }
        set { settings.withLock { $0.recordsTraffic = newValue } }
    }

    /// The exchanges recorded while ``recordsTraffic`` was on, redacted and bounded. See ``RecordedTraffic``.
    public var recordedTraffic: RecordedTraffic {
        settings.withLock { $0.recordedTraffic }
    }
}
