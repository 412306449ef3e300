import Foundation

/// The command line: `GitHubClient [user] [--per-page N] [--live] [--token TOKEN] [--mock-remaining N] [--verbose]`.
struct Options {
    var user = "octocat"
    var perPage = 3
    var live = false
    var token: String?
    var mockRemaining = 5000
    var verbose = false

    static let usage = """
        usage: GitHubClient [user] [--per-page N] [--live] [--token TOKEN] [--mock-remaining N] [--verbose]
          user               whose public repositories to list (default: octocat)
          --per-page N       repositories per page, 1...100 (default: 3, to show several pages)
          --live             ask api.github.com; the token comes from GITHUB_TOKEN (60 requests an hour without one)
          --token TOKEN      the token to send (the mock knows only its own: try a wrong one); prefer
                             GITHUB_TOKEN for a real token: a command line is visible to other users
          --mock-remaining N the mock's rate limit has N requests left at the start (try 2)
          --verbose          the library's log of every request (the token reads <redacted>)
        """

    /// The options in `arguments` (without the program's name); exits with the usage on a mistake.
    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
        var arguments = arguments[...]
        while let argument = arguments.popFirst() {
            switch argument {
            case "--per-page":
                guard let value = arguments.popFirst().flatMap({ Int($0) }), (1...100).contains(value) else {
                    fail("--per-page needs a number from 1 to 100")
                }
                options.perPage = value
            case "--live":
                options.live = true
            case "--token":
                guard let value = arguments.popFirst(), !value.isEmpty else { fail("--token needs a value") }
                options.token = value
            case "--mock-remaining":
                guard let value = arguments.popFirst().flatMap({ Int($0) }), (0...5000).contains(value) else {
                    fail("--mock-remaining needs a number from 0 to 5000")
                }
                options.mockRemaining = value
            case "--verbose":
                options.verbose = true
            case "--help", "-h":
                print(usage)
                exit(0)
            default:
                // A GitHub login: letters, digits and hyphens, at most 39 characters.
                guard !argument.hasPrefix("-"), (1...39).contains(argument.count),
                      argument.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
                    fail("\"\(argument.printable())\" is neither an option nor a GitHub user name")
                }
                options.user = argument
            }
        }
        return options
    }

    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("GitHubClient: \(message)\n\(usage)\n".utf8))
        exit(2)
    }
}
