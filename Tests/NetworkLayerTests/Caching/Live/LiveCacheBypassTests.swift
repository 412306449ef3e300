import Foundation
import Testing
import TestScheduling
@testable import NetworkLayer

/// What the cache stays out of: streams, downloads to files and uploads go to the network
/// (`.miss`), mock mode never reads or writes it (`cacheStatus == nil`).
@Suite("Streams, downloads, uploads and mock mode go around the cache", .sharing)
struct LiveCacheBypassTests {
    @Test("A streamed response is neither served from nor stored in the cache")
    func streams() async throws {
        try await withCacheServer { server in
            try await server.configure("/stream", ["headers": [["Cache-Control", "max-age=600"]], "body": "streamed {count}"])
            let net = makeCachingManager()
            _ = try await net.text(server, "/stream")  // stored for a plain GET…
            for expected in ["streamed 2", "streamed 3"] {  // …and still every stream goes to the server
                let (stream, response) = try await net.performWithResponse(StreamRequest<ByteStream>(server.provider(), "/stream"))
                var bytes = Data()
                for try await chunk in stream { bytes += chunk }
                #expect(String(decoding: bytes, as: UTF8.self) == expected && response.cacheStatus == .miss)
            }
            #expect(try await server.hits("/stream") == 3)
        }
    }

    @Test("A download to a file is neither served from nor stored in the cache")
    func downloads() async throws {
        try await withCacheServer { server in
            try await server.configure("/file", ["headers": [["Cache-Control", "max-age=600"]], "body": "file {count}"])
            let net = makeCachingManager()
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nl-cache-download-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            for index in 1...2 {
                let destination = directory.appendingPathComponent("\(index)")
                let (file, response) = try await net.performWithResponse(DownloadRequest(server.provider(), "/file", to: destination))
                #expect(try String(contentsOf: file.url, encoding: .utf8) == "file \(index)" && response.cacheStatus == .miss)
            }
            #expect(try await net.text(server, "/file").status == .miss, "the downloads stored nothing")
            #expect(try await server.hits("/file") == 3)
        }
    }

    @Test("A GET sending a body (params as JSON) is keyed by more than its URL: it goes around the cache")
    func getWithBody() async throws {
        try await withCacheServer { server in
            try await server.configure("/search", ["headers": [["Cache-Control", "max-age=600"]], "body": "search {count}"])
            let net = makeCachingManager()
            for query in ["a", "b"] {
                let request = CachedText(server, "/search")
                request.params = ["q": query]
                request.parameterEncoding = .json
                let response = try await net.performWithResponse(request)
                #expect(response.response.cacheStatus == .miss)
            }
            #expect(try await server.hits("/search") == 2)
        }
    }

    @Test("Mock mode never reads or writes the cache: cacheStatus is nil, and the live request after it is a MISS")
    func mockMode() async throws {
        try await withCacheServer { server in
            try await server.configure("/mocked", ["headers": [["Cache-Control", "max-age=600"]], "body": "live {count}"])
            let net = makeCachingManager()
            net.areMocksEnabled = true
            net.mocks.register(.get, "/mocked", .data(Data("mock".utf8), headers: ["Cache-Control": "max-age=600"]))
            let mocked = try await net.performWithResponse(CachedText(server, "/mocked"))
            #expect(mocked.value == "mock" && mocked.response.cacheStatus == nil && mocked.response.isMocked)
            net.areMocksEnabled = false
            let live = try await net.text(server, "/mocked")
            #expect(live.text == "live 1" && live.status == .miss)
            net.areMocksEnabled = true
            let mockedAgain = try await net.performWithResponse(CachedText(server, "/mocked"))
            #expect(mockedAgain.value == "mock" && mockedAgain.response.cacheStatus == nil, "the mock answers, not the stored live response")
            #expect(net.mocks.requests.count == 2, "the recorded requests are those mocks answered")
            #expect(try await server.hits("/mocked") == 1)
        }
    }
}
