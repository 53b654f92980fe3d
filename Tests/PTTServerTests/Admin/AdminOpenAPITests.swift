import Foundation
import NIOHTTP1
import PTTAdmin
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

/// The admin API's OpenAPI 3.1 document (Sources/PTTServer/Admin/openapi.json, served at `GET /api/openapi.json`)
/// cannot drift from the server: its routes are the router's, and its schemas are the Codable models'.
@Suite("Admin API description")
struct AdminOpenAPITests {
    /// The schema of each admin model, by the name the document gives it.
    static var models: [String: any Decodable.Type] {
        [
            "AdminError": AdminError.self, "ChannelSummary": ChannelSummary.self, "ChannelDetail": ChannelDetail.self,
            "MemberStatus": MemberStatus.self, "LastWakeStatus": LastWakeStatus.self,
            "QueueEntryStatus": QueueEntryStatus.self, "CreateChannelRequest": CreateChannelRequest.self,
            "UserStatus": UserStatus.self, "AddUserRequest": AddUserRequest.self,
            "AddUserResponse": AddUserResponse.self,
            "SignInLinkRequest": SignInLinkRequest.self, "SignInLinkResponse": SignInLinkResponse.self,
            "AnnounceRequest": AnnounceRequest.self, "AnnounceResponse": AnnounceResponse.self,
            "WakeCount": WakeCount.self, "WakeTotals": WakeTotals.self, "ChannelRecording": ChannelRecording.self,
            "RecordedBurstInfo": RecordedBurstInfo.self, "CertificateReport": CertificateReport.self,
            "ReloadReport": ReloadReport.self, "NodesResponse": NodesResponse.self, "NodeInfo": NodeInfo.self,
            "UserRightsRequest": UserRightsRequest.self, "ChannelEmergencyStatus": ChannelEmergencyStatus.self,
            "CallStatus": CallStatus.self,
            "BroadcastStatus": BroadcastStatus.self,
        ]
    }
    /// Schemas that are no Swift model: `GET /api/health`'s `{"status":"ok"}` (a dictionary literal in the router),
    /// and this document itself (OpenAPI's business, kept open).
    static let notModels: Set<String> = ["Health", "OpenAPIDocument"]

    @Test("GET /api/openapi.json serves the document, with the admin token like every other route")
    func served() async throws {
        try await withTestServer { server in
            let served = try await server.admin.getBytes("/api/openapi.json")
            #expect(served == [UInt8](try Data(contentsOf: OpenAPIDocument.file)))
            let document = try OpenAPIDocument(bytes: served)
            #expect(document.root["openapi"] as? String == "3.1.0")

            let stranger = AdminClient(baseURL: server.admin.baseURL, token: "not-the-token")
            do {
                _ = try await stranger.getBytes("/api/openapi.json")
                Issue.record("served the document without the token")
            } catch let error as AdminError {
                #expect(error.code == .unauthorized)
            }
        }
    }

    @Test("the document lists exactly the router's routes, with their query parameters and request bodies")
    func routesAreTheRouters() throws {
        let router = try AdminRouterRoutes.fromSource()
        #expect(router.unparsed.isEmpty, "route patterns this test cannot read: \(router.unparsed)")
        #expect(router.operations.count >= 20, "read only \(router.operations.count) routes from AdminRouter.swift")
        let documented = try OpenAPIDocument.fromSource().operations
        let missing = router.operations.subtracting(documented).map(\.description).sorted()
        let extra = documented.subtracting(router.operations).map(\.description).sorted()
        #expect(missing.isEmpty, "routed but not documented (or documented differently): \(missing)")
        #expect(extra.isEmpty, "documented but not routed (or routed differently): \(extra)")
    }

    @Test("a running server routes every documented method of each documented path, and no other method")
    func routedOverHTTP() async throws {
        let document = try OpenAPIDocument.fromSource()
        try await withTestServer { server in
            for (path, item) in document.paths.sorted(by: { $0.key < $1.key }) {
                // Names no channel, user or burst has: a routed request is answered `not-found` for the name.
                let concrete = path.replacingOccurrences(of: "{id}", with: "987654321")
                    .replacingOccurrences(of: #"\{[^}]*\}"#, with: "nobody-here", options: .regularExpression)
                for method in ["GET", "PUT", "POST", "DELETE", "PATCH"] {
                    let documented = item[method.lowercased()] != nil
                    var routed = true
                    do { try await server.admin.perform(HTTPMethod(rawValue: method), concrete) } catch let error
                        as AdminError
                    {
                        routed = !error.message.hasPrefix("no route ")
                    }
                    #expect(routed == documented, "\(method) \(concrete): routed \(routed), documented \(documented)")
                }
            }
        }
    }

    @Test("each schema has the keys, types and required keys its Codable model decodes")
    func schemasAreTheModels() throws {
        let document = try OpenAPIDocument.fromSource()
        #expect(Set(document.schemas.keys) == Set(Self.models.keys).union(Self.notModels))
        for (name, model) in Self.models.sorted(by: { $0.key < $1.key }) where document.schemas[name] != nil {
            let expected = try CodableShape(of: model)
            let written = try document.shape(of: name)
            #expect(written == expected, "\(name): the document says {\(written)}, the model reads {\(expected)}")
        }
        let codes = (document.schemas["AdminError"]?["properties"] as? [String: [String: Any]])?["error"]?["enum"]
        #expect(Set(codes as? [String] ?? []) == Set(AdminErrorCode.allCases.map(\.rawValue)))
    }
}

/// The reader of AdminRouter.swift sees what a new route or query parameter would look like.
@Suite("Admin router reader")
struct AdminRouterRoutesTests {
    @Test("a route pattern gives its method, path, query parameters and body; an unknown pattern is reported")
    func reads() throws {
        let source = """
                switch (method, segments.count, segments.first, segments.count > 1 ? segments[1] : "") {
                case (.GET, 4, "api", "channels") where segments[3] == "history":
                    let channel = try recorded(segments[2], query)
                    return .json(try plane.recordings.history(channel, since: try query.since(), limit: limit))
                case (.PUT, 3, "api", "users"):
                    return .json(try plane.admin.update(decode(UpdateUserRequest.self, body)))
                case (.GET, 1, "metrics", _):
                    return metrics
                case (.GET, segments.count, "api", _):
                    return nothing
                default:
                    return .error(AdminError(.notFound, "no route"))
                }

                private func recorded(_ name: String, _ query: AdminQuery) throws(AdminError) -> RecordedChannel {
                    if try query.flag("deleted") { return .deleted(name) }
                }
            """
        let routes = try AdminRouterRoutes(source: source)
        #expect(
            routes.operations == [
                .init(method: "GET", template: "/api/channels/{}/history", query: ["deleted", "since"]),
                .init(method: "PUT", template: "/api/users/{}", requestBody: "UpdateUserRequest"),
                .init(method: "GET", template: "/metrics"),
            ])
        #expect(routes.unparsed == [#"case (.GET, segments.count, "api", _):"#])
    }
}
