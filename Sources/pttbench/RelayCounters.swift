#if os(Linux)
/// The relay's counters from `/metrics` (`ptt_media_*`, or the series starting with another prefix), by series.
struct RelayCounters {
    var values: [String: Double] = [:]

    init(_ exposition: String, prefix: String = "ptt_media_") {
        for line in exposition.split(separator: "\n") where line.hasPrefix(prefix) {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                continue
            }
            values[String(line[..<space])] = value
        }
    }

    private init(values: [String: Double]) { self.values = values }

    /// Differences, keeping only series that moved.
    func minus(_ earlier: RelayCounters) -> [String: Int] {
        var result: [String: Int] = [:]
        for (key, value) in values {
            let delta = Int(value - (earlier.values[key] ?? 0))
            if delta != 0 { result[key] = delta }
        }
        return result
    }
}
#endif
