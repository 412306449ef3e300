import Foundation
import NetworkLayer

// `--stream`: a chat-style answer streamed token by token as server-sent events, the way
// OpenAI- and Anthropic-style APIs answer with `"stream": true`. In mock mode it is read from
// MockResponses/ChatCompletionStream.sse, paced by the sidecar's eventDelay.

/// A chat API (a placeholder host: the demo answers from mocks unless `--live`/`--host`).
struct ChatProvider: ServiceProvider {
    var host = "api.example.com"
    var httpScheme = HTTPScheme.https
    var port: Int?
}

final class ChatCompletionStream: BaseRequest<EventStream> {
    init(prompt: String, provider: ChatProvider = ChatProvider()) {
        super.init(serviceProvider: provider, endpoint: "/v1/chat/completions")
        httpMethod = .post
        params = ["prompt": prompt, "stream": true]
        mockedResponseFilename = "ChatCompletionStream"   // MockResponses/ChatCompletionStream.sse
    }
}

/// The JSON of one event's data.
struct ChatChunk: Decodable, Sendable {
    let text: String
}

/// Streams the answer to `prompt`, printing each token as it arrives.
func streamChat(prompt: String, provider: ChatProvider) async throws(NetworkError) {
    let events = try await Net.perform(ChatCompletionStream(prompt: prompt, provider: provider))
    print("Assistant: ", terminator: "")
    for try await event in events {
        if event.data == "[DONE]" {
            print()  // before leaving the loop, which logs the stream's end line
            return
        }
        let chunk = try event.decode(ChatChunk.self)
        print(chunk.text, terminator: "")
        fflush(nil)  // each token shows at once (nil: every output stream)
    }
    print()  // a stream without [DONE]
}
