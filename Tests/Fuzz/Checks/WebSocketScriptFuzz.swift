import Foundation
@testable import NetworkLayer

/// A mock WebSocket's script (`<name>.ws`): any bytes, read as mock mode reads one.
///
/// Reading never traps; a refusal is an `.invalidRequest` naming the script and a line of it (or,
/// over the size limit, the limit); an accepted script has at most one step per line, pauses of 0
/// to 60 seconds and close codes that may be sent; and its steps written back as record mode writes
/// them (`RecordingWebSocketChannel`) read back as the same steps, close reasons with control
/// characters or a leading space aside.
enum WebSocketScriptFuzz {
    private static let name = "fuzz.ws"

    static func check(_ data: Data) throws(FuzzFailure) {
        let lineCount = data.reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
        let script: WebSocketScript
        do {
            script = try WebSocketScript(parsing: data, name: name, request: "GET http://127.0.0.1/fuzz")
        } catch {
            if data.count > WebSocketScript.maximumFileSize {
                guard case .invalidRequest(let context) = error, context.reason?.contains("\(name) is over") == true else {
                    throw FuzzFailure("a script over the limit gave \(error), not an .invalidRequest naming the script and the limit")
                }
                return
            }
            guard case .invalidRequest(let context) = error, let reason = context.reason,
                  let range = reason.range(of: "\(name), line "),
                  let number = Int(reason[range.upperBound...].prefix { $0.isNumber }) else {
                throw FuzzFailure("a refused script gave \(error), not an .invalidRequest naming the script and a line")
            }
            try require((1...lineCount).contains(number), "a refusal names line \(number) of \(lineCount)")
            return
        }
        try require(script.steps.count <= lineCount, "\(script.steps.count) steps from \(lineCount) lines")
        var comparable: [WebSocketScript.Step] = []
        for (line, step) in script.steps {
            try require((1...lineCount).contains(line), "a step names line \(line) of \(lineCount)")
            switch step {
            case .pause(let duration):
                try require(duration >= .zero && duration <= .seconds(60), "the pause \(duration) at line \(line)")
            case .close(let code, let reason):
                try require(code.isSendable, "the close code \(code.rawValue) at line \(line) may not be sent")
                if reason.hasPrefix(" ") || reason.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                    // Written as spaces: the steps are compared up to here.
                    return try compare(comparable, script)
                }
            default: break
            }
            comparable.append(step)
        }
        try compare(comparable, script)
    }

    /// The script's steps written back read as `steps` (its first steps).
    private static func compare(_ steps: [WebSocketScript.Step], _ script: WebSocketScript) throws(FuzzFailure) {
        let lines = steps.flatMap(RecordingWebSocketChannel.lines)
        let text = lines.joined(separator: "\n")
        let again: WebSocketScript
        do {
            again = try WebSocketScript(parsing: Data(text.utf8), name: name, request: "GET http://127.0.0.1/fuzz")
        } catch {
            throw FuzzFailure("the steps \(steps), written back as \(text.debugDescription), are refused: \(error)")
        }
        try require(again.steps.map { $0.step } == steps,
                    "the steps \(steps), written back as \(text.debugDescription), read back as \(again.steps.map { $0.step })")
    }
}
