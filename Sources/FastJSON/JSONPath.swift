import Foundation

// MARK: - Coding paths

/// One materialized step of a coding path; a path is a node and the node's ancestors. Nodes are
/// owned by their document (`JSONDocument.keep`), so paths refer to them without reference counting.
final class JSONPathNode {
    let parent: JSONPathNode?
    let key: any CodingKey

    init(parent: JSONPathNode?, key: any CodingKey) {
        self.parent = parent
        self.key = key
    }
}

/// The coding path of a value: materialized nodes plus, for an array element, its index, which
/// only becomes a node when a nested value needs it as its parent. Plain data, cheap to copy: so
/// decoding an array of structs of primitives allocates nothing for paths; keys are only
/// assembled for an error.
struct JSONPath {
    /// Owned by the document, which every decoder and container keeps alive.
    unowned(unsafe) let parent: JSONPathNode?
    /// The index of an array element after `parent`, or -1.
    let index: Int

    static var root: JSONPath { JSONPath(parent: nil, index: -1) }

    var keys: [any CodingKey] { keys(appending: JSONNoKey()) }

    func keys(appending extra: some CodingKey) -> [any CodingKey] {
        var keys: [any CodingKey] = []
        if !(extra is JSONNoKey) { keys.append(extra) }
        if index >= 0 { keys.append(JSONIndexKey(index)) }
        var node = parent
        while let current = node {
            keys.append(current.key)
            node = current.parent
        }
        return keys.reversed()
    }

    /// The path as a node, for nested paths.
    @inline(__always)
    func node(in document: JSONDocument) -> JSONPathNode? {
        guard index >= 0 else { return parent }
        return document.keep(JSONPathNode(parent: parent, key: JSONIndexKey(index)))
    }

    /// The path of a value nested at `key`.
    @inline(__always)
    func child<K: CodingKey>(_ key: K, in document: JSONDocument) -> JSONPath {
        if K.self == JSONNoKey.self { return self }
        if let indexKey = key as? JSONIndexKey { // folded away once specialised for a key type
            return JSONPath(parent: node(in: document), index: indexKey.index)
        }
        return JSONPath(parent: document.keep(JSONPathNode(parent: node(in: document), key: key)), index: -1)
    }
}
