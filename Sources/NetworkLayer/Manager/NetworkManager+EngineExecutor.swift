extension NetworkManager {
    /// The libcurl thread as a task executor (see <doc:PerformanceAndMetrics>), shared by every manager.
    /// **Never block it**: while your code runs there, no transfer of any manager makes progress.
    public static var engineExecutor: any TaskExecutor { CurlEngineExecutor.shared }
}
