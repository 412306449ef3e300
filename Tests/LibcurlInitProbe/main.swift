import Foundation

// Which allocation functions libcurl uses depends on what touched it first in the process, so
// each order runs in a process of its own (LibcurlInitTests): in the test process, whichever
// test runs first decides. Reaches the engine through @testable import: debug builds only.
//
// `LibcurlInitProbe <first>` makes `first` the process's first use of libcurl:
//   easy     an easy handle (what a cookie store, a WebSocket and the idle-connection pruner make)
//   share    a share handle (a manager's connection cache or cookie store)
//   engine   the engine (a manager's first request)
//   foreign  curl_global_init called by something other than NetworkLayer (as URLSession does)
// then starts the engine, and prints one line of JSON:
// `{"caches": whether libcurl allocates through the receive-buffer cache, "engine": whether the engine started}`.

#if DEBUG
@testable import NetworkLayer
import CNetworkLayerCurl

let arguments = CommandLine.arguments
guard arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: LibcurlInitProbe easy|share|engine|foreign\n".utf8))
    exit(2)
}
do {
    switch arguments[1] {
    case "easy": _ = try CurlEasyHandle()
    case "share": _ = try CurlShare()
    case "engine": _ = try CurlEngine.shared.get()
    case "foreign": guard curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK else { exit(1) }
    default:
        FileHandle.standardError.write(Data("unknown first use \(arguments[1])\n".utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
let engine = (try? CurlEngine.shared.get()) != nil
print("{\"caches\": \(CurlGlobal.cachesReceiveBuffers), \"engine\": \(engine)}")
#else
print("LibcurlInitProbe reaches the engine through @testable import: build it in debug (swift build --build-tests)")
exit(1)
#endif
