extension KeyedDecodingContainer {
    /// An optional whole number that must lie in `range`: `fallback` when the key is missing, a
    /// `DecodingError.dataCorrupted` naming the key and the range when it is out of it.
    func decodeInteger(_ key: Key, in range: ClosedRange<Int64>, default fallback: Int64) throws -> Int64 {
        guard let value = try decodeIfPresent(Int64.self, forKey: key) else { return fallback }
        guard range.contains(value) else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: codingPath + [key],
                    debugDescription:
                        "\(key.stringValue) must be \(range.lowerBound)...\(range.upperBound), got \(value)"))
        }
        return value
    }
}
