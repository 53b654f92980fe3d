import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import PTTProtocol

/// A client of the admin JSON API (what `pttctl` uses).
public struct AdminClient: Sendable {
    public let baseURL: String
    private let token: String
    private let timeout: TimeAmount

    public init(baseURL: String, token: String, timeout: Duration = .seconds(10)) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.token = token
        self.timeout = TimeAmount(timeout)
    }

    /// Finds the admin URL and token in a data directory (`runtime.json`, `admin-token`).
    public static func fromDataDirectory(_ path: String) throws -> AdminClient {
        let runtimeFile = (path as NSString).appendingPathComponent("runtime.json")
        let tokenFile = (path as NSString).appendingPathComponent("admin-token")
        guard let runtimeData = FileManager.default.contents(atPath: runtimeFile) else {
            throw AdminError(
                error: "no-server",
                message: "no \(runtimeFile): is pttd running with --data \(path)? (or pass --url and --token)")
        }
        guard let info = try? JSONDecoder().decode(RuntimeInfo.self, from: runtimeData) else {
            throw AdminError(error: "no-server", message: "\(runtimeFile) is not valid")
        }
        guard let tokenText = try? String(contentsOfFile: tokenFile, encoding: .utf8) else {
            throw AdminError(
                error: "no-token", message: "cannot read \(tokenFile) (it is readable by pttd's user only)")
        }
        return AdminClient(baseURL: info.adminURL, token: tokenText.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    public func get<T: Decodable>(_ path: String, as type: T.Type = T.self) async throws -> T {
        try decode(T.self, try await send(.GET, path))
    }

    public func post<B: Encodable, T: Decodable>(_ path: String, body: B, as type: T.Type = T.self) async throws -> T {
        try decode(T.self, try await send(.POST, path, body: try JSONEncoder().encode(body)))
    }

    public func put<B: Encodable, T: Decodable>(_ path: String, body: B, as type: T.Type = T.self) async throws -> T {
        try decode(T.self, try await send(.PUT, path, body: try JSONEncoder().encode(body)))
    }

    /// The raw answer body of a GET that may be large (recorded audio: up to 256 MiB, a minute at most).
    public func getBytes(_ path: String) async throws -> [UInt8] {
        try await send(.GET, path, limit: 256 << 20, timeout: .seconds(60))
    }

    /// The raw answer body of a GET that may be large (a backup): at most `limit` bytes, within `timeout`.
    public func getBytes(_ path: String, limit: Int, timeout: Duration) async throws -> [UInt8] {
        try await send(.GET, path, limit: limit, timeout: TimeAmount(timeout))
    }

    /// A request whose answer has no body (204), e.g. DELETE.
    public func perform(_ method: HTTPMethod, _ path: String) async throws {
        _ = try await send(method, path)
    }

    /// The raw answer body of a GET (for `/metrics`).
    public func getText(_ path: String) async throws -> String {
        String(decoding: try await send(.GET, path), as: UTF8.self)
    }

    /// `GET /api/wakes`: the notifier's totals and the state of its transports.
    public func wakes() async throws -> WakeTotals {
        try await get("/api/wakes")
    }

    /// `POST /api/channels/NAME/announce`: stores an announcement for every member of a channel.
    public func announce(channel: String, _ request: AnnounceRequest) async throws -> AnnounceResponse {
        try await post("/api/channels/\(AdminClient.segment(channel))/announce", body: request)
    }

    /// Percent-encodes one path segment (names may contain spaces or slashes).
    public static func segment(_ text: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove("/")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    private func send(
        _ method: HTTPMethod, _ path: String, body: Data? = nil, limit: Int = 16 << 20, timeout: TimeAmount? = nil
    ) async throws -> [UInt8] {
        var headers = HTTPHeaders()
        headers.add(name: "authorization", value: "Bearer \(token)")
        if body != nil { headers.add(name: "content-type", value: "application/json") }
        let response: AdminResponseCollector.Response
        do {
            let request = try HTTPClient.Request(
                url: baseURL + path, method: method, headers: headers, body: body.map { .bytes(Array($0)) })
            response = try await HTTPClient.shared.execute(
                request: request, delegate: AdminResponseCollector(limit: limit),
                deadline: .now() + (timeout ?? self.timeout)
            ).futureResult.get()
        } catch let error as AdminResponseCollector.TooLarge {
            throw AdminError(error: "too-large", message: "pttd's answer to \(path): \(error)")
        } catch {
            throw AdminError(error: "no-server", message: "cannot reach pttd's admin API at \(baseURL): \(error)")
        }
        guard (200..<300).contains(response.status.code) else {
            if let error = try? JSONDecoder().decode(AdminError.self, from: Data(response.body)) { throw error }
            throw AdminError(
                error: "http-\(response.status.code)",
                message: "\(response.status.code) \(response.status.reasonPhrase)")
        }
        return response.body
    }

    private func decode<T: Decodable>(_ type: T.Type, _ bytes: [UInt8]) throws -> T {
        if T.self == Empty.self { return Empty() as! T }
        return try JSONDecoder().decode(T.self, from: Data(bytes))
    }

    /// For requests whose answer is ignored.
    public struct Empty: Codable, Sendable { public init() {} }
}
