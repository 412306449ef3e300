import Foundation
import NetworkLayer

/// The command line: `ChatClient [prompt…] [--live] [--host URL] [--model NAME] [--timeout SECONDS] [--verbose]`.
struct Options {
    var prompt = "What are server-sent events?"
    var live = false
    var provider = ChatAPI(apiKey: nil)
    var model = "gpt-4o-mini"
    var timeout: Double?
    var verbose = false

    static let usage = """
        usage: ChatClient [prompt…] [--live] [--host URL] [--model NAME] [--timeout SECONDS] [--verbose]
          prompt             what to ask (default: "What are server-sent events?")
          --live             ask api.openai.com, with the key in OPENAI_API_KEY
          --host URL         ask an OpenAI-compatible server instead, e.g. http://127.0.0.1:11434 (Ollama);
                             with the key in OPENAI_API_KEY if it wants one
          --model NAME       the model (default: gpt-4o-mini)
          --timeout SECONDS  stop the answer after this long, 0.1 to 3600 (Ctrl-C stops it at any time)
          --verbose          the library's log of the request (the key reads <redacted>)
        """

    /// The options in `arguments` (without the program's name); exits with the usage on a mistake.
    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
        var words: [String] = []
        var arguments = arguments[...]
        while let argument = arguments.popFirst() {
            switch argument {
            case "--live":
                options.live = true
            case "--host":
                guard let value = arguments.popFirst(), let url = URL(string: value), let host = url.host, !host.isEmpty,
                      let scheme = url.scheme.flatMap(HTTPScheme.init(rawValue:)) else {
                    fail("--host needs a URL such as http://127.0.0.1:11434")
                }
                options.provider.host = host
                options.provider.httpScheme = scheme
                options.provider.port = url.port
                options.live = true
            case "--model":
                guard let value = arguments.popFirst(), !value.isEmpty else { fail("--model needs a name") }
                options.model = value
            case "--timeout":
                guard let value = arguments.popFirst().flatMap({ Double($0) }), value >= 0.1, value <= 3600 else {
                    fail("--timeout needs a number of seconds from 0.1 to 3600")
                }
                options.timeout = value
            case "--verbose":
                options.verbose = true
            case "--help", "-h":
                print(usage)
                exit(0)
            default:
                guard !argument.hasPrefix("--") else { fail("unknown option \(argument.printable())") }
                words.append(argument)
            }
        }
        if !words.isEmpty { options.prompt = words.joined(separator: " ") }
        return options
    }

    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("ChatClient: \(message)\n\(usage)\n".utf8))
        exit(2)
    }
}
