import Foundation

/// Finds an object key that appears twice in the same JSON object.
///
/// JSON parsers disagree on duplicate keys (Foundation keeps the first, most libraries the last), so a
/// frame such as `{"type":"heartbeat","type":"join"}` would mean different things to different readers.
/// The control protocol refuses such frames as malformed. The scan runs after the body parsed as JSON,
/// so it only tracks nesting, strings and which string is a key; keys are compared after unescaping.
enum JSONDuplicateKeys {
    /// The first key that repeats within one object, or nil. `body` must be valid JSON.
    static func first(in body: Data) -> String? {
        body.withUnsafeBytes { raw in first(in: raw.bindMemory(to: UInt8.self)) }
    }

    private struct Level {
        var isObject: Bool
        var expectingKey: Bool
        var keys: Set<[UInt8]> = []
    }

    private static func first(in bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var stack: [Level] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "{"):
                stack.append(Level(isObject: true, expectingKey: true))
            case UInt8(ascii: "["):
                stack.append(Level(isObject: false, expectingKey: false))
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                _ = stack.popLast()
            case UInt8(ascii: ","):
                if let last = stack.indices.last, stack[last].isObject { stack[last].expectingKey = true }
            case UInt8(ascii: "\""):
                let start = index + 1
                var end = start
                var escaped = false
                while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
                    if bytes[end] == UInt8(ascii: "\\") {
                        escaped = true
                        end += 1
                    }
                    end += 1
                }
                if let last = stack.indices.last, stack[last].isObject, stack[last].expectingKey {
                    stack[last].expectingKey = false
                    let key = key(bytes, start..<min(end, bytes.count), escaped: escaped)
                    if !stack[last].keys.insert(key).inserted { return String(decoding: key, as: UTF8.self) }
                }
                index = end
            default:
                break
            }
            index += 1
        }
        return nil
    }

    /// The key's characters, unescaped (`"t\u0079pe"` is `type`).
    private static func key(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, escaped: Bool) -> [UInt8] {
        let raw = Array(bytes[range])
        guard escaped else { return raw }
        let quoted = Data([UInt8(ascii: "\"")] + raw + [UInt8(ascii: "\"")])
        guard let text = try? JSONDecoder().decode(String.self, from: quoted) else { return raw }
        return Array(text.utf8)
    }
}
