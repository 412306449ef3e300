import Foundation
import NetworkLayer

// An OpenAI-style chat API: `POST /v1/chat/completions` with `"stream": true` answers with
// server-sent events, one chunk of the answer each, then `data: [DONE]`. OpenAI, and the servers
// that copy its API (Ollama, llama.cpp's server, vLLM), all speak it.

/// The chat backend: api.openai.com unless `--host` names another.
struct ChatAPI: ServiceProvider {
    var host = "api.openai.com"
    var httpScheme = HTTPScheme.https
    var port: Int?

    /// The API key, sent as `Authorization: Bearer …` (redacted wherever the library shows it), or
    /// `nil` for a local server that wants none.
    let apiKey: String?

    var authentication: Authentication? { apiKey.map { .bearer($0) } }

    var jsonDecoder: JSONDecoder { Self.decoder }
    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase  // finish_reason → finishReason
        return decoder
    }()

    /// OpenAI's failing statuses come with `{"error": {"message": "…", "type": "…"}}`.
    var errorBodyType: (any ServerErrorBody.Type)? { ChatAPIError.self }
}

/// `POST /v1/chat/completions`, streamed: the response type ``EventStream`` makes `perform` return
/// once the status is in, and the body is read event by event while it arrives.
final class ChatCompletionStream: BaseRequest<EventStream> {
    init(prompt: String, model: String, provider: ChatAPI) {
        super.init(serviceProvider: provider, endpoint: "/v1/chat/completions")
        httpMethod = .post
        body = .json(ChatRequest(model: model, messages: [.init(role: "user", content: prompt)], stream: true))
        // `requestTimeout` (default 60 s) bounds, for a stream, the wait for the headers and then each silence
        // between two chunks, never the whole answer: a long answer is not cut. The program's
        // --timeout is a deadline for the whole answer, of its own (main.swift).
        // In mock mode: MockResponses/ChatCompletionStream.sse, paced by ChatCompletionStream.meta.json.
        mockedResponseFilename = "ChatCompletionStream"
    }
}

/// The request's body.
struct ChatRequest: Encodable, Sendable {
    struct Message: Encodable, Sendable {
        let role: String
        let content: String
    }

    let model: String
    let messages: [Message]
    let stream: Bool
}

/// The data of one event: a piece of the answer in `choices[0].delta.content`; the last chunk
/// has a `finish_reason` instead ("stop", or "length" when the answer was cut).
struct ChatChunk: Decodable, Sendable {
    struct Choice: Decodable, Sendable {
        struct Delta: Decodable, Sendable {
            let content: String?
        }

        let delta: Delta
        let finishReason: String?
    }

    let choices: [Choice]
}

/// The body of a failing response.
struct ChatAPIError: ServerErrorBody {
    struct Detail: Decodable, Sendable {
        let message: String
        let type: String?
    }

    let error: Detail
    var serverMessage: String? { error.message }
}
