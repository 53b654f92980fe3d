/// The admin API's OpenAPI 3.1 description, `Admin/openapi.json` compiled into pttd (SwiftPM's `embedInCode`), served
/// at `GET /api/openapi.json` with the admin token like every other route (the router has no unauthenticated
/// routes; only the console's static files are). `AdminOpenAPITests` holds it to the router's routes and to the
/// Codable models of PTTProtocol, and `AdminSchemaTests` runs schemathesis against a running pttd with it.
enum AdminAPIDescription {
    /// `GET /api/openapi.json`.
    static var response: AdminResponse {
        AdminResponse(status: .ok, body: PackageResources.openapi_json)
    }
}
