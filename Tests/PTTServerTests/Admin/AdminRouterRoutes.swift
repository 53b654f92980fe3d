import Foundation

/// The routes written in Sources/PTTServer/Admin/AdminRouter.swift, read from its `case` patterns:
/// `case (.GET, 4, "api", "channels") where segments[3] == "bursts":` is `GET /api/channels/{}/bursts`, with the
/// query parameters its body reads (`query.integer("limit", …)`, `query.since()`, `query["name"]`) and the body it
/// decodes (`decode(ChannelRecording.self, body)`), also through a function of the file it hands `query` to.
///
/// The router is a `switch`, which no code can list at run time; reading its source is what lets a test hold the
/// OpenAPI document to every route, including one added later. A `case` this reader cannot parse fails the test
/// (``unparsed``) rather than going unseen.
struct AdminRouterRoutes {
    static let file = PackagePaths.root.appendingPathComponent("Sources/PTTServer/Admin/AdminRouter.swift")

    var operations: Set<OpenAPIDocument.Operation> = []
    /// `case (` lines of the router's switches that are not a route pattern this reader knows.
    var unparsed: [String] = []

    init(source: String) throws {
        let helpers = Self.helperQueryNames(in: source)
        let pattern = try NSRegularExpression(
            pattern:
                #"^case \(\.([A-Z]+), (\d+), "([^"]*)", (?:_|"([^"]*)")\)(?: where segments\[(\d+)\] == "([^"]*)")?:$"#)
        var current: OpenAPIDocument.Operation?
        for line in source.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line.hasPrefix("case (") || line.hasPrefix("default:") {
                if let current { operations.insert(current) }
                current = nil
                guard line.hasPrefix("case (") else { continue }
                let range = NSRange(line.startIndex..., in: line)
                guard let match = pattern.firstMatch(in: line, range: range) else {
                    unparsed.append(line)
                    continue
                }
                func group(_ index: Int) -> String? {
                    Range(match.range(at: index), in: line).map { String(line[$0]) }
                }
                let count = Int(group(2)!)!
                var segments = [group(3)!]
                if count > 1 { segments.append(group(4) ?? "{}") }
                for index in 2..<max(count, 2) {
                    segments.append(group(5).flatMap(Int.init) == index ? group(6)! : "{}")
                }
                current = OpenAPIDocument.Operation(
                    method: group(1)!, template: "/" + segments.joined(separator: "/"))
            } else if current != nil {
                current!.query.formUnion(Self.queryNames(in: line))
                for (helper, names) in helpers where line.contains("\(helper)(") { current!.query.formUnion(names) }
                if let body = Self.firstGroup(#"decode\((\w+)\.self"#, in: line) { current!.requestBody = body }
            }
        }
    }

    static func fromSource() throws -> AdminRouterRoutes {
        try AdminRouterRoutes(source: String(contentsOf: file, encoding: .utf8))
    }

    /// The query parameters each function of the file reads, for a route that hands its `query` to one
    /// (`recorded(segments[2], query)` reads `deleted`); the functions holding the `case`s are left out.
    private static func helperQueryNames(in source: String) -> [String: Set<String>] {
        var names: [String: Set<String>] = [:]
        var routing: Set<String> = []
        var function: String?
        for line in source.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if let name = firstGroup(
                #"^(?:(?:private|fileprivate|static|package|public|mutating) )*func (\w+)"#, in: line)
            {
                function = name
                names[name, default: []] = []
            } else if let function {
                if line.hasPrefix("case (") { routing.insert(function) }
                names[function]!.formUnion(queryNames(in: line))
            }
        }
        return names.filter { !routing.contains($0.key) && !$0.value.isEmpty }
    }

    private static func queryNames(in line: String) -> Set<String> {
        var names: Set<String> = []
        if line.contains("query.since(") { names.insert("since") }
        for pattern in [#"query\.\w+\("(\w+)""#, #"query\["(\w+)"\]"#] {
            let expression = try! NSRegularExpression(pattern: pattern)
            for match in expression.matches(in: line, range: NSRange(line.startIndex..., in: line)) {
                if let range = Range(match.range(at: 1), in: line) { names.insert(String(line[range])) }
            }
        }
        return names
    }

    private static func firstGroup(_ pattern: String, in line: String) -> String? {
        let expression = try! NSRegularExpression(pattern: pattern)
        guard let match = expression.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)),
            let range = Range(match.range(at: 1), in: line)
        else { return nil }
        return String(line[range])
    }
}
