// Issue 54's block: what a hostile server found. A header's value as the bytes sent, and paths
// sent as given (`.` and `..` kept).

import Foundation
import NetworkLayer

struct ObjectStore: ServiceProvider {
    var host: String { "store.example" }
    var httpScheme: HTTPScheme { .https }
    var sendsPathAsIs: Bool? { true }                                  // object keys may hold ".."
}

final class GetObject: BaseRequest<Data> {
    init(key: String) {
        super.init(serviceProvider: ObjectStore(), endpoint: "/bucket/" + key)
        sendsPathAsIs = true                                           // nil: the provider's, then the manager's
    }
}

func checkHostileServerAPI() {
    Net.sendsPathAsIs = false                                          // the default: dot segments removed
    let response = HTTPResponse(statusCode: 200, headerFields: [("X-Name", "café")], url: URL(string: "https://store.example")!)
    let bytes: [UInt8]? = response.bytes(forHeader: "x-name")         // as sent; value(forHeader:) reads UTF-8
    let latin1 = bytes.flatMap { String(bytes: $0, encoding: .isoLatin1) }
    print(latin1 ?? "", GetObject(key: "a/../b").sendsPathAsIs ?? false, ObjectStore().sendsPathAsIs ?? false)
}
