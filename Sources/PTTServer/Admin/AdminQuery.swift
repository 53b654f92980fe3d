import Foundation
import PTTProtocol

/// The query of an admin API request (`?since=3600&limit=20`), with its values checked.
struct AdminQuery {
    private var values: [String: String] = [:]

    init(_ text: String) {
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
            }
            if let name = parts.first { values[name] = parts.count > 1 ? parts[1] : "" }
        }
    }

    subscript(name: String) -> String? { values[name] }

    /// A whole number in `range`, nil when absent; `bad-request` naming it otherwise.
    func integer(_ name: String, in range: ClosedRange<Int>) throws(AdminError) -> Int? {
        guard let text = values[name] else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw AdminError(.badRequest, "\(name) must be a whole number in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    /// A yes/no parameter: `true` or `1` (or the name alone), `false` or `0`; false when absent, `bad-request`
    /// naming it otherwise.
    func flag(_ name: String) throws(AdminError) -> Bool {
        switch values[name] {
        case nil, "false", "0": return false
        case "", "true", "1": return true
        default: throw AdminError(.badRequest, "\(name) must be true or false")
        }
    }

    /// `since`: seconds back from now; nil when absent.
    func since(now: Date = Date()) throws(AdminError) -> Date? {
        try integer("since", in: 0...(100 * 365 * 86_400)).map { now.addingTimeInterval(-Double($0)) }
    }
}
