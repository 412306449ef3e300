import Foundation
import NetworkLayer
import Synchronization

// ChatClient [prompt…] [--live] [--host URL] [--model NAME] [--timeout SECONDS] [--verbose]
//
// Sends a prompt to an OpenAI-style chat API and prints the answer token by token as it streams
// in. Ctrl-C, or the --timeout deadline, stops it cleanly: the transfer is cancelled, what arrived
// stays on the screen. By default the answer is read from MockResponses/ChatCompletionStream.sse,
// paced by its .meta.json; --live asks api.openai.com, --host any OpenAI-compatible server.

var options = Options.parse(Array(CommandLine.arguments.dropFirst()))

// The library's log shows the request and the stream's start and end, the key redacted. It is on
// by default in a debug build only; an example's output should not depend on how it was built, and
// log lines in the middle of an answer make it hard to read: off unless asked for. It goes to
// standard error, so that the answer alone can be piped.
Net.isVerbose = options.verbose

if options.live {
    let key = ProcessInfo.processInfo.environment["OPENAI_API_KEY"].flatMap { $0.isEmpty ? nil : $0 }
    if key == nil, options.provider.host == "api.openai.com" {
        FileHandle.standardError.write(Data("ChatClient: --live needs an API key in OPENAI_API_KEY\n".utf8))
        exit(2)
    }
    options.provider = ChatAPI(host: options.provider.host, httpScheme: options.provider.httpScheme,
                               port: options.provider.port, apiKey: key)
    print("Asking \(options.provider.httpScheme)://\(options.provider.host)\(options.provider.port.map { ":\($0)" } ?? "") (\(options.model))")
} else {
    Net.areMocksEnabled = true
    // The example's own mock directory, wherever the program is started from.
    Net.mockResponsesDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("MockResponses", isDirectory: true)
    options.provider = ChatAPI(apiKey: "mock-key-0b6e2d")  // sent, and redacted, as a real one would be
    print("Mock mode: the answer streams from \(Net.mockResponsesDirectory.path)/ChatCompletionStream.sse"
          + " (--live or --host for a real server)")
}

/// How an answer ended.
enum Ending: Sendable {
    /// `data: [DONE]` arrived; the last chunk's `finish_reason`.
    case finished(reason: String?)
    /// The body ended without `[DONE]`.
    case cutShort
}

/// Streams the answer to `prompt`, writing each piece as it arrives.
///
/// - Throws: the ``NetworkError`` that ended it: a failing status before the first event, a broken
///   connection or an undecodable event during the stream, ``NetworkError/cancelled(_:)`` when the
///   task running it is cancelled (the transfer stops with it).
func streamAnswer(to prompt: String, model: String, from provider: ChatAPI) async throws(NetworkError) -> Ending {
    // `perform` returns once the status is in (a failing one throws here); the body follows.
    let events = try await Net.perform(ChatCompletionStream(prompt: prompt, model: model, provider: provider))
    print("Assistant: ", terminator: "")
    var finishReason: String?
    do throws(NetworkError) {
        for try await event in events {
            if event.data == "[DONE]" {
                print()
                fflush(nil)  // before leaving the loop, which ends the stream (and logs that, with --verbose)
                return .finished(reason: finishReason)
            }
            let chunk = try event.decode(ChatChunk.self)
            for choice in chunk.choices {
                if let content = choice.delta.content { print(content.printable(), terminator: "") }
                finishReason = choice.finishReason ?? finishReason
            }
            fflush(nil)  // each piece shows at once (nil: every output stream; `stdout` is a C global Swift 6 will not share)
        }
    } catch {
        print()  // the answer's line ends, whatever stopped it
        throw error
    }
    print()
    return .cutShort
}

/// Why the answer was stopped, set by whoever stopped it first: Ctrl-C or the deadline.
final class Stop: Sendable {
    enum Reason: Sendable {
        case interrupted
        case deadline(seconds: Double)
    }

    private let value = Mutex<Reason?>(nil)
    func set(_ reason: Reason) { value.withLock { $0 = $0 ?? reason } }
    var reason: Reason? { value.withLock { $0 } }
}

print("You: \(options.prompt.printable())")

let stop = Stop()
let started = ContinuousClock.now
let (prompt, model, provider) = (options.prompt, options.model, options.provider)
let answering = Task { () -> Result<Ending, NetworkError> in
    do throws(NetworkError) {
        return .success(try await streamAnswer(to: prompt, model: model, from: provider))
    } catch {
        return .failure(error)
    }
}

// Ctrl-C cancels the task; a second Ctrl-C ends the program at once, as usual.
signal(SIGINT, SIG_IGN)
let interrupts = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
interrupts.setEventHandler {
    stop.set(.interrupted)
    answering.cancel()
    signal(SIGINT, SIG_DFL)
}
interrupts.resume()

// The deadline cancels it the same way.
let deadline = options.timeout.map { seconds in
    Task {
        try? await Task.sleep(for: .seconds(seconds))
        guard !Task.isCancelled else { return }
        stop.set(.deadline(seconds: seconds))
        answering.cancel()
    }
}

let result = await answering.value
deadline?.cancel()
let elapsed = started.duration(to: .now)
let seconds = String(format: "%.1f", Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)

switch result {
case .success(.finished(let reason)):
    print("[done in \(seconds) s\(reason.map { ", finish_reason \($0.printable())" } ?? "")]")
    exit(0)
case .success(.cutShort):
    print("[the stream ended without [DONE] after \(seconds) s: the answer may be incomplete]")
    exit(1)
case .failure(.cancelled) where stop.reason != nil:
    switch stop.reason {
    case .deadline(let limit)?:
        print("[stopped after \(seconds) s: no complete answer within \(limit) s]")
        exit(124)
    default:
        print("[stopped after \(seconds) s: interrupted]")
        exit(130)
    }
case .failure(let error):
    print("[failed after \(seconds) s]")
    // What the library says is redacted (no key in it); what the server said is made printable.
    let description = (error.localizedDescription + " " + (error.recoverySuggestion ?? "")).printable()
    switch error {
    case .unauthorizedAccess where provider.apiKey == nil:
        print("The API wants a key: set OPENAI_API_KEY. \(description)")
    case .unauthorizedAccess:
        print("The API refused the key: check OPENAI_API_KEY (it is never printed). \(description)")
    case .notFound:
        print("No chat endpoint at /v1/chat/completions on this host: is it OpenAI-compatible? \(description)")
    case .apiError(let context) where context.statusCode == 429:
        let wait = context.response?.value(forHeader: "Retry-After").flatMap { Int($0) }.map { " in \(min(max($0, 0), 86_400)) s" } ?? " later"
        print("The API is rate-limiting this key (or its quota is spent): try again\(wait). \(description)")
    case .reachability, .timeOut:
        print("The chat server could not be reached: \(description)")
    case .serialization:
        print("An event was not the chunk expected: \(description)")
    default:
        print(description)
    }
    exit(1)
}
