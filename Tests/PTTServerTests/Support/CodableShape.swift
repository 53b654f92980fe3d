import PTTProtocol

/// What a `Decodable` type's `init(from:)` reads: each key, the Swift type read there, and whether it is required
/// (`decode`) or optional (`decodeIfPresent`). Found by decoding the type once from a decoder that answers every
/// question with an empty value and writes the questions down, so it follows the type's real (synthesized or written)
/// decoding, including fields added later with a default in `init`.
struct CodableShape: Equatable, CustomStringConvertible {
    struct Field: Equatable, CustomStringConvertible {
        /// `String`, `Int`, `Array<MemberStatus>`, ...
        var type: String
        var required: Bool
        var description: String { required ? type : type + "?" }
    }

    var fields: [String: Field]

    init<T: Decodable>(of type: T.Type) throws {
        let recorder = ShapeRecorder()
        _ = try T(from: ShapeDecoder(recorder: recorder))
        fields = recorder.fields
    }

    init(fields: [String: Field]) { self.fields = fields }

    var description: String {
        fields.keys.sorted().map { "\($0): \(fields[$0]!)" }.joined(separator: ", ")
    }
}

/// The questions asked at the top level of one decode (nested values are decoded without recording).
private final class ShapeRecorder {
    var fields: [String: CodableShape.Field] = [:]
    var askedIfNil: Set<String> = []

    /// `decodeIfPresent` asks `decodeNil` before `decode`; `decode` alone means the key is required. A closed set
    /// (`WireValue`) is a string on the wire.
    func read(_ key: String, _ type: Any.Type) {
        let name =
            type is any WireValue.Type
            ? "String" : type is any WireValueList.Type ? "Array<String>" : String(describing: type)
        fields[key] = CodableShape.Field(type: name, required: !askedIfNil.contains(key))
    }
}

private struct ShapeDecoder: Decoder {
    let recorder: ShapeRecorder?
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(ShapeKeyedContainer<Key>(recorder: recorder))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { ShapeEmptyList() }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { ShapeEmptyValue() }
}

private struct ShapeKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let recorder: ShapeRecorder?
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool { true }

    func decodeNil(forKey key: Key) throws -> Bool {
        recorder?.askedIfNil.insert(key.stringValue)
        return false
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        recorder?.read(key.stringValue, T.self)
        return try T(from: ShapeDecoder(recorder: nil))
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { recorded(key, false) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { recorded(key, "") }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { recorded(key, 0) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { recorded(key, 0) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { recorded(key, 0) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { recorded(key, 0) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { recorded(key, 0) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { recorded(key, 0) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { recorded(key, 0) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { recorded(key, 0) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { recorded(key, 0) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { recorded(key, 0) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { recorded(key, 0) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { recorded(key, 0) }

    private func recorded<T>(_ key: Key, _ value: T) -> T {
        recorder?.read(key.stringValue, T.self)
        return value
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        KeyedDecodingContainer(ShapeKeyedContainer<NestedKey>(recorder: nil))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { ShapeEmptyList() }
    func superDecoder() throws -> any Decoder { ShapeDecoder(recorder: nil) }
    func superDecoder(forKey key: Key) throws -> any Decoder { ShapeDecoder(recorder: nil) }
}

/// Every list is empty: its element type is named by the field's type (`Array<MemberStatus>`).
private struct ShapeEmptyList: UnkeyedDecodingContainer {
    var codingPath: [any CodingKey] { [] }
    var count: Int? { 0 }
    var isAtEnd: Bool { true }
    var currentIndex: Int { 0 }

    mutating func decodeNil() throws -> Bool { true }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        throw DecodingError.valueNotFound(T.self, .init(codingPath: [], debugDescription: "an empty list"))
    }
    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        KeyedDecodingContainer(ShapeKeyedContainer<NestedKey>(recorder: nil))
    }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { ShapeEmptyList() }
    mutating func superDecoder() throws -> any Decoder { ShapeDecoder(recorder: nil) }
}

/// A single value: false, zero or the empty string.
private struct ShapeEmptyValue: SingleValueDecodingContainer {
    var codingPath: [any CodingKey] { [] }

    func decodeNil() -> Bool { false }
    func decode(_ type: Bool.Type) throws -> Bool { false }
    func decode(_ type: String.Type) throws -> String { "" }
    func decode(_ type: Double.Type) throws -> Double { 0 }
    func decode(_ type: Float.Type) throws -> Float { 0 }
    func decode(_ type: Int.Type) throws -> Int { 0 }
    func decode(_ type: Int8.Type) throws -> Int8 { 0 }
    func decode(_ type: Int16.Type) throws -> Int16 { 0 }
    func decode(_ type: Int32.Type) throws -> Int32 { 0 }
    func decode(_ type: Int64.Type) throws -> Int64 { 0 }
    func decode(_ type: UInt.Type) throws -> UInt { 0 }
    func decode(_ type: UInt8.Type) throws -> UInt8 { 0 }
    func decode(_ type: UInt16.Type) throws -> UInt16 { 0 }
    func decode(_ type: UInt32.Type) throws -> UInt32 { 0 }
    func decode(_ type: UInt64.Type) throws -> UInt64 { 0 }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: ShapeDecoder(recorder: nil)) }
}

/// A list of a closed set: an array of strings on the wire.
private protocol WireValueList {}
extension Array: WireValueList where Element: WireValue {}
