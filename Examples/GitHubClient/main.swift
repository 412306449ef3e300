import Foundation
import NetworkLayer

// GitHubClient [user] [--per-page N] [--live] [--token TOKEN] [--mock-remaining N] [--verbose]
//
// Lists a user's public repositories page by page, following GitHub's `Link` headers, then walks
// them again sending each page's ETag, so that unchanged pages come back as `304 Not Modified`
// (free under GitHub's rate limit). By default a fake GitHub answers (GitHubMock.swift); --live
// asks api.github.com with the token in GITHUB_TOKEN, if any.

var options = Options.parse(Array(CommandLine.arguments.dropFirst()))

// The library's log shows every request and response, headers included, the token redacted. It is
// on by default in a debug build only; an example's output should not depend on how it was built,
// so it is off unless asked for. It goes to standard error, the program's own output to standard output.
Net.isVerbose = options.verbose

let mock = GitHubMock(remaining: options.mockRemaining)
if options.live {
    options.token = options.token ?? ProcessInfo.processInfo.environment["GITHUB_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
    print("Asking https://api.github.com \(options.token == nil ? "without a token (60 requests an hour)" : "with the token given")")
} else {
    Net.areMocksEnabled = true
    mock.install(on: Net)
    options.token = options.token ?? GitHubMock.token
    print("Mock mode: a fake api.github.com answers (Examples/GitHubClient/GitHubMock.swift); --live asks the real one")
}

let client = GitHubClient(github: GitHub(token: options.token, etags: ETagStore()))

/// One line per page: its status, its size, the rate limit left.
func show(_ page: GitHubClient.Page) {
    let status = page.statusCode == 304 ? "304 Not Modified, the \(page.repositories.count) repositories kept with its ETag"
                                        : "\(page.statusCode == 200 ? "200 OK" : "\(page.statusCode)"), \(page.repositories.count) repositories"
    let rate = page.rateLimit.map { "; rate limit \($0.remaining) of \($0.limit) left, resets in \($0.minutesToReset) min" } ?? ""
    print("  page \(page.number): \(status)\(rate)")
}

/// Why a walk failed, case by case, and what to do. Server text is made printable first.
func explain(_ error: NetworkError, user: String) -> String {
    let message = error.serverError(as: GitHubError.self).map { " (GitHub says: \($0.message.printable()))" } ?? ""
    switch error {
    case .unauthorizedAccess(let context) where context.response?.rateLimit?.remaining == 0,
         .apiError(let context) where context.statusCode == 429:
        let limit = context.response?.rateLimit
        let advice = (limit?.limit ?? 0) > 60 ? "Wait for the reset." : "Wait, or send a token (GITHUB_TOKEN): 5,000 requests an hour instead of 60."
        return "The rate limit is used up\(limit.map { " for \($0.minutesToReset) min" } ?? "")\(message). \(advice)"
    case .unauthorizedAccess:
        return "GitHub refused the token\(message). Check the token in GITHUB_TOKEN (it is never printed)."
    case .notFound:
        return "GitHub has no user \"\(user)\"\(message)."
    case .reachability, .timeOut:
        return "GitHub could not be reached: \(error.localizedDescription.printable()) Check the network, or run without --live."
    default:
        return "\(error.localizedDescription) \(error.recoverySuggestion ?? "")".printable()
    }
}

/// Every page of `user`'s repositories, each printed as it arrives; exits on a failure.
func walk(_ client: GitHubClient, user: String, perPage: Int) async -> [GitHubClient.Page] {
    do {
        return try await client.repositoryPages(of: user, perPage: perPage, onPage: show)
    } catch {
        print(explain(error, user: user))
        exit(1)
    }
}

print("\(options.user)'s repositories, \(options.perPage) a page:")
let repositories = await walk(client, user: options.user, perPage: options.perPage).flatMap(\.repositories)
print("\(repositories.count) repositories:")
let width = repositories.map(\.fullName.count).max() ?? 0
for repository in repositories {
    let name = repository.fullName.printable().padding(toLength: width, withPad: " ", startingAt: 0)
    let stars = String(repository.stargazersCount).leftPadded(to: 6)
    let description = (repository.description ?? "").printable()
    print("  \(name) \(stars) ★  \(description.count > 60 ? description.prefix(59) + "…" : description)")
}

if !options.live {
    print("Meanwhile, someone stars octocat/linguist (in the mock).")
    mock.star("linguist")
}
print("Again, sending each page's ETag as If-None-Match:")
let again = await walk(client, user: options.user, perPage: options.perPage)
let unchanged = again.filter { $0.statusCode == 304 }.count
print("\(unchanged) of \(again.count) pages unchanged: answered 304 without a body, and not counted against the rate limit.")
