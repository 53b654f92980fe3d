import Foundation
import TestSupport

/// The admin API's OpenAPI document (Sources/PTTServer/Admin/openapi.json) read for the tests: its operations, with
/// their query parameters and request bodies, and its schemas.
struct OpenAPIDocument {
    /// One method on one path, the path written with `{}` for each parameter (`/api/channels/{}/bursts`).
    struct Operation: Hashable, CustomStringConvertible {
        var method: String
        var template: String
        var query: Set<String> = []
        /// The schema name of the JSON body read, if any.
        var requestBody: String?
        var description: String {
            "\(method) \(template) query \(query.sorted()) body \(requestBody ?? "none")"
        }
    }

    static let file = PackagePaths.root.appendingPathComponent("Sources/PTTServer/Admin/openapi.json")

    let root: [String: Any]

    init(bytes: [UInt8]) throws {
        root = try require_(JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    static func fromSource() throws -> OpenAPIDocument {
        try OpenAPIDocument(bytes: [UInt8](Data(contentsOf: file)))
    }

    var paths: [String: [String: Any]] { root["paths"] as? [String: [String: Any]] ?? [:] }

    var schemas: [String: [String: Any]] {
        (root["components"] as? [String: Any])?["schemas"] as? [String: [String: Any]] ?? [:]
    }

    static let methods = ["get", "put", "post", "delete", "patch", "head", "options", "trace"]

    /// `/api/channels/{channel}` → `/api/channels/{}`.
    static func template(_ path: String) -> String {
        path.replacingOccurrences(of: #"\{[^}]*\}"#, with: "{}", options: .regularExpression)
    }

    var operations: Set<Operation> {
        var result: Set<Operation> = []
        for (path, item) in paths {
            for method in Self.methods {
                guard let operation = item[method] as? [String: Any] else { continue }
                let parameters = (operation["parameters"] as? [[String: Any]] ?? [])
                let query = parameters.filter { $0["in"] as? String == "query" }.compactMap { $0["name"] as? String }
                let body =
                    ((operation["requestBody"] as? [String: Any])?["content"] as? [String: Any])?[
                        "application/json"] as? [String: Any]
                result.insert(
                    Operation(
                        method: method.uppercased(), template: Self.template(path), query: Set(query),
                        requestBody: (body?["schema"] as? [String: Any]).flatMap(Self.referenced)))
            }
        }
        return result
    }

    /// `{"$ref": "#/components/schemas/NAME"}` → NAME.
    static func referenced(_ schema: [String: Any]) -> String? {
        (schema["$ref"] as? String).map { String($0.split(separator: "/").last ?? "") }
    }

    /// A schema's properties as a ``CodableShape``: JSON types written as the Swift types that read them
    /// (`integer` → `Int`, unless its `format` says `int64`; arrays → `Array<…>`; references → the schema's name).
    func shape(of name: String) throws -> CodableShape {
        let schema = try require_(schemas[name], "no schema \(name)")
        let properties = schema["properties"] as? [String: [String: Any]] ?? [:]
        let required = Set(schema["required"] as? [String] ?? [])
        var fields: [String: CodableShape.Field] = [:]
        for (key, property) in properties {
            fields[key] = CodableShape.Field(type: Self.swiftType(property), required: required.contains(key))
        }
        return CodableShape(fields: fields)
    }

    private static func swiftType(_ schema: [String: Any]) -> String {
        if let name = referenced(schema) { return name }
        let type = (schema["type"] as? String) ?? (schema["type"] as? [String])?.first { $0 != "null" } ?? "?"
        switch type {
        case "string": return "String"
        case "boolean": return "Bool"
        case "number": return "Double"
        case "integer":
            switch schema["format"] as? String {
            case "int64": return "Int64"
            case "uint32": return "UInt32"
            default: return "Int"
            }
        case "array": return "Array<\(swiftType(schema["items"] as? [String: Any] ?? [:]))>"
        default: return type
        }
    }
}
