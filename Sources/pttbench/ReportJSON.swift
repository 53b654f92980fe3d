#if os(Linux)
import Foundation

extension Encodable {
    /// This value as pttbench prints it with `--json`: pretty-printed, keys sorted.
    func encodedJSON() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// ``encodedJSON()``, or nothing ("") when the value does not encode (a figure that is not a number).
    func json() -> String { (try? encodedJSON()) ?? "" }
}
#endif
