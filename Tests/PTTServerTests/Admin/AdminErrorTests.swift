import PTTProtocol
import Testing

@testable import PTTServer

/// An admin error's code decides its HTTP status; a code the server does not know answers 500.
@Suite("Admin error statuses")
struct AdminErrorTests {
    @Test("each code has its status, and the response carries it")
    func statuses() {
        let expected: [AdminErrorCode: UInt] = [
            .badRequest: 400, .unauthorized: 401, .notFound: 404, .methodNotAllowed: 405,
            .conflict: 409, .tooLarge: 413, .invalidConfiguration: 422, .internal: 500, .unavailable: 503,
        ]
        #expect(Set(expected.keys) == Set(AdminErrorCode.allCases))
        for (code, status) in expected {
            #expect(AdminResponse.error(AdminError(code, "x")).status.code == status, "\(code)")
        }
        #expect(AdminResponse.error(AdminError(error: "something-else", message: "x")).status.code == 500)
    }
}
