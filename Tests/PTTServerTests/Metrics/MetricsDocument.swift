import Foundation

/// One metric family as pttd exports it or as a Docs/PROTOCOL.md table documents it: its type and, per label, the
/// values it can take (nil: an open set, whose values the table does not list).
struct MetricFamilyShape: Equatable, CustomStringConvertible {
    var type: String
    var labels: [String: Set<String>?]

    var description: String {
        let text = labels.keys.sorted().map { key in
            "\(key)=" + (labels[key]!.map { $0.sorted().joined(separator: "|") } ?? "*")
        }
        return "\(type) {\(text.joined(separator: ", "))}"
    }

    /// Whether `documented` says what this exported family is: same type and labels, and the same values of every
    /// label whose values the table lists.
    func isDocumented(by documented: MetricFamilyShape) -> Bool {
        guard type == documented.type, Set(labels.keys) == Set(documented.labels.keys) else { return false }
        return documented.labels.allSatisfy { key, values in values == nil || values == labels[key]! }
    }
}

/// Reads metric families from a Prometheus text exposition and from the Markdown tables that document them.
enum MetricsDocument {
    /// Every family of an exposition by name: its `# TYPE` and each label's values over all its series (histogram
    /// buckets' `le` left out).
    static func families(exposition: String) -> [String: MetricFamilyShape] {
        var families: [String: MetricFamilyShape] = [:]
        let lines = exposition.split(separator: "\n").map(String.init)
        for line in lines where line.hasPrefix("# TYPE ") {
            let parts = line.split(separator: " ")
            if parts.count == 4 { families[String(parts[2])] = MetricFamilyShape(type: String(parts[3]), labels: [:]) }
        }
        for line in lines where !line.hasPrefix("#") && !line.isEmpty {
            let name = String(line.prefix { $0 != "{" && $0 != " " })
            let family =
                families[name] != nil
                ? name
                : ["_bucket", "_sum", "_count"].lazy.compactMap { suffix in
                    name.hasSuffix(suffix) ? String(name.dropLast(suffix.count)) : nil
                }.first { families[$0] != nil }
            guard let family else { continue }
            for (key, value) in labels(of: line) where key != "le" {
                var values = families[family]!.labels[key] ?? []
                values?.insert(value)
                families[family]!.labels[key] = values
            }
        }
        return families
    }

    /// The `key="value"` pairs of one sample line.
    private static func labels(of line: String) -> [(String, String)] {
        guard let open = line.firstIndex(of: "{"), let close = line.lastIndex(of: "}") else { return [] }
        let text = line[line.index(after: open)..<close]
        return text.matches(of: /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/).map {
            (String($0.output.1), String($0.output.2))
        }
    }

    /// The rows of the metric table in the part of `markdown` from the heading that starts with `heading` to the
    /// next heading of the same or a higher level. A row may name several metrics (`` `a`, `b` ``); its labels cell
    /// is `` `key` = `value`, `value` `` (groups separated by `;`) to list every value, or `` `key`, `key` `` to
    /// name keys whose values are open; text in parentheses is a remark.
    static func table(in markdown: String, section heading: String) -> [String: MetricFamilyShape] {
        let lines = markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(where: { $0.hasPrefix(heading) }) else { return [:] }
        let level = heading.prefix { $0 == "#" }.count
        let rest = lines[(start + 1)...]
        let end =
            rest.firstIndex {
                let hashes = $0.prefix { $0 == "#" }.count
                return hashes > 0 && hashes <= level && $0.dropFirst(hashes).hasPrefix(" ")
            } ?? lines.endIndex
        var rows: [String: MetricFamilyShape] = [:]
        for line in lines[(start + 1)..<end] where line.hasPrefix("| `ptt_") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count >= 5 else { continue }
            let shape = MetricFamilyShape(type: cells[2], labels: labels(cell: cells[3]))
            for name in code(in: cells[1]) { rows[name] = shape }
        }
        return rows
    }

    private static func labels(cell: String) -> [String: Set<String>?] {
        let text = cell.replacing(/\([^)]*\)/, with: "")
        guard text.contains("=") else { return Dictionary(uniqueKeysWithValues: code(in: text).map { ($0, nil) }) }
        var labels: [String: Set<String>?] = [:]
        for group in text.split(separator: ";") {
            let sides = group.split(separator: "=", maxSplits: 1).map(String.init)
            guard sides.count == 2, let key = code(in: sides[0]).first else { continue }
            labels[key] = Set(code(in: sides[1]))
        }
        return labels
    }

    /// The `code` spans of a Markdown cell.
    private static func code(in text: String) -> [String] {
        text.matches(of: /`([^`]*)`/).map { String($0.output.1) }
    }
}
