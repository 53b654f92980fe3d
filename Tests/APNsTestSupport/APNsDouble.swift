import APNs
import Crypto
import Foundation
import NIOCore
import NIOHTTP2
import NIOPosix
import NIOSSL
import PTTProtocol
import SwiftASN1
import Synchronization
import TestSupport
import X509

/// A local stand-in for APNs: an HTTP/2 server over TLS (ALPN `h2` only) on 127.0.0.1 and an ephemeral port,
/// with a throwaway CA, a certificate for `127.0.0.1`/`localhost`, and a `.p8` signing key in a temporary
/// directory. `settings` points an `APNsClient` (or the server) at it.
///
/// Every request is recorded with the checks real APNs would make (`ReceivedAPNsRequest.problems`); answers
/// are `200` with an `apns-id` unless scripted per device token (`respond(toToken:status:reason:)`) or for all
/// (`respondToAll(status:reason:)`). The files are left in the temporary directory after `shutdown()`, so
/// settings taken from a stopped double still load.
public final class APNsDouble: Sendable {
    /// The team id provider tokens must name (`iss`).
    public let teamId: String
    /// The key id provider tokens must name (`kid`).
    public let keyId: String
    /// The app whose topic (`<bundleId>.voip-ptt`) pushtotalk requests must name.
    public let bundleId: String
    /// The port it listens on (127.0.0.1).
    public let port: Int
    /// The directory holding `ca.pem` and `AuthKey_<keyId>.p8`.
    public let directory: String
    /// The PEM of the CA that signed the server certificate (`settings.caFile`).
    public let caFile: String
    /// The `.p8` key (PKCS#8 PEM, P-256) tokens must be signed with (`settings.keyFile`).
    public let keyFile: String
    /// The public half of the `.p8` key, as raw bytes (swift-crypto keys are not `Sendable`).
    private let publicKeyRaw: Data
    private let serverChannel: Channel
    private let state: APNsDoubleState

    /// Everything an `APNsClient` needs to talk to this double (environment `sandbox`, endpoint overridden), with
    /// the send timeout stretched by `TestTimeouts.scale`: under ThreadSanitizer, with the whole pass running,
    /// a server's first send (TLS and HTTP/2 connect included) took over the default 5 s after the double had
    /// received it, and the wake counted `failed`, reason `timeout`.
    public var settings: APNsSettings {
        APNsSettings(
            keyFile: keyFile, keyId: keyId, teamId: teamId, bundleId: bundleId, environment: "sandbox",
            endpoint: "https://127.0.0.1:\(port)", caFile: caFile,
            timeoutMs: Int(APNsClient.testRequestTimeout.nanoseconds / 1_000_000))
    }

    /// The key tokens are checked against.
    public var publicKey: P256.Signing.PublicKey { try! P256.Signing.PublicKey(rawRepresentation: publicKeyRaw) }

    /// Writes the CA and key files and starts listening.
    public static func start(
        teamId: String = "TEAM123456", keyId: String = "KEY1234567", bundleId: String = "com.example.walkie"
    ) async throws -> APNsDouble {
        let directory = NSTemporaryDirectory() + "apns-double-" + UUID().uuidString.prefix(12)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let signingKey = P256.Signing.PrivateKey()
        let keyFile = directory + "/AuthKey_\(keyId).p8"
        try signingKey.pemRepresentation.write(toFile: keyFile, atomically: true, encoding: .utf8)
        let certificates = try APNsDoubleCertificates.make()
        let caFile = directory + "/ca.pem"
        try certificates.caPEM.write(toFile: caFile, atomically: true, encoding: .utf8)

        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try NIOSSLCertificate(bytes: certificates.serverDER, format: .der))],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(certificates.serverKeyPEM.utf8), format: .pem)))
        tls.minimumTLSVersion = .tlsv12
        tls.applicationProtocols = ["h2"]
        let sslContext = try NIOSSLContext(configuration: tls)

        let expectations = APNsRequestExpectations(
            teamId: teamId, keyId: keyId, bundleId: bundleId,
            publicKeyRaw: signingKey.publicKey.rawRepresentation)
        let state = APNsDoubleState(expectations: expectations)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                state.track(channel)
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext))
                    _ = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
                        mode: .server, connectionConfiguration: .init(), streamConfiguration: .init()
                    ) { stream in
                        stream.eventLoop.makeCompletedFuture {
                            try stream.pipeline.syncOperations.addHandler(APNsDoubleStreamHandler(state: state))
                        }
                    }
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        guard let port = channel.localAddress?.port else { throw APNsDoubleFailure("the double's channel has no port") }
        return APNsDouble(
            teamId: teamId, keyId: keyId, bundleId: bundleId, port: port, directory: directory, caFile: caFile,
            keyFile: keyFile, publicKeyRaw: signingKey.publicKey.rawRepresentation, serverChannel: channel, state: state
        )
    }

    private init(
        teamId: String, keyId: String, bundleId: String, port: Int, directory: String, caFile: String, keyFile: String,
        publicKeyRaw: Data, serverChannel: Channel, state: APNsDoubleState
    ) {
        self.teamId = teamId
        self.keyId = keyId
        self.bundleId = bundleId
        self.port = port
        self.directory = directory
        self.caFile = caFile
        self.keyFile = keyFile
        self.publicKeyRaw = publicKeyRaw
        self.serverChannel = serverChannel
        self.state = state
    }

    /// From now on, answers requests for the device token `hex` (lowercase) with `status` and, when given, a
    /// `{"reason": …}` body. Status 200 answers as a success (with an `apns-id`).
    public func respond(toToken hex: String, status: Int, reason: String?) {
        state.script(token: hex.lowercased(), answer: .init(status: status, reason: reason))
    }

    /// From now on, answers requests for tokens without a script of their own with `status` and `reason`.
    public func respondToAll(status: Int, reason: String?) {
        state.scriptDefault(.init(status: status, reason: reason))
    }

    /// The requests received so far, in order of arrival.
    public func requests() -> [ReceivedAPNsRequest] { state.received() }

    /// Waits until at least `count` requests have arrived and returns all of them.
    /// - Throws: `APNsDoubleFailure` if they have not arrived within `timeout` (times `TestTimeouts.scale`).
    public func waitForRequests(count: Int, timeout: Duration = .seconds(10)) async throws -> [ReceivedAPNsRequest] {
        try await withThrowingTaskGroup(of: [ReceivedAPNsRequest].self) { group in
            group.addTask { try await self.state.requests(atLeast: count) }
            group.addTask {
                try await Task.sleep(for: timeout * TestTimeouts.scale)
                throw APNsDoubleFailure(
                    "APNs double: \(self.state.received().count) of \(count) requests arrived within \(timeout)")
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }

    /// Stops listening and closes open connections.
    public func shutdown() async throws {
        try? await serverChannel.close()
        for channel in state.openChannels() { try? await channel.close() }
    }
}

/// One request as the double saw it, with every check it failed.
public struct ReceivedAPNsRequest: Sendable {
    /// One header field, as received (pseudo-headers included, e.g. `:method`).
    public struct Header: Sendable, Equatable {
        public var name: String
        public var value: String
    }

    /// `:method`.
    public let method: String?
    /// `:path`.
    public let path: String?
    /// `:scheme`.
    public let scheme: String?
    /// `:authority`.
    public let authority: String?
    /// All header fields in order, pseudo-headers first.
    public let headers: [Header]
    /// The body, as received.
    public let body: [UInt8]
    /// The body as the project's push payload, nil if it is not one.
    public let payload: PushPayload?
    /// The device token from the path (lowercase hex), nil if the path is not `/3/device/<hex>`.
    public let deviceToken: String?
    /// The provider token (`authorization: bearer <jwt>`), decoded, nil if missing or malformed.
    public let providerToken: DecodedProviderToken?
    /// What was wrong with the request; empty when APNs would accept it.
    public let problems: [String]
    /// The status the double answered with.
    public let answeredStatus: Int
    /// The `apns-id` the double answered with.
    public let answeredAPNsID: String

    /// The JWT header, when the provider token decoded.
    public var jwtHeader: DecodedProviderToken.Header? { providerToken?.header }
    /// The JWT claims, when the provider token decoded.
    public var jwtClaims: DecodedProviderToken.Claims? { providerToken?.claims }

    /// The first value of header `name` (lowercase).
    public func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }
    /// All values of header `name` (lowercase).
    public func headerValues(_ name: String) -> [String] { headers.filter { $0.name == name }.map(\.value) }
}

/// A provider token taken apart and checked independently of `APNsProviderToken`.
public struct DecodedProviderToken: Sendable, Equatable {
    /// The JOSE header.
    public struct Header: Codable, Sendable, Equatable {
        public var alg: String?
        public var kid: String?
        public var typ: String?
        public init(alg: String?, kid: String?, typ: String?) {
            self.alg = alg
            self.kid = kid
            self.typ = typ
        }
    }
    /// The claims.
    public struct Claims: Codable, Sendable, Equatable {
        public var iss: String?
        public var iat: Int64?
        public init(iss: String?, iat: Int64?) {
            self.iss = iss
            self.iat = iat
        }
    }

    /// The token as received.
    public let jwt: String
    public let header: Header
    public let claims: Claims
    /// Whether the third part is a raw r||s ES256 signature of the first two by the expected key.
    public let signatureIsValid: Bool

    /// Decodes `jwt` and verifies its signature with `publicKey`.
    /// - Throws: `APNsDoubleFailure` describing what is malformed.
    public init(jwt: String, publicKey: P256.Signing.PublicKey) throws {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3 else { throw APNsDoubleFailure("JWT has \(parts.count) parts, expected 3") }
        func decode(_ part: String, _ what: String) throws -> Data {
            guard !part.isEmpty,
                part.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
            else {
                throw APNsDoubleFailure("JWT \(what) is not unpadded base64url")
            }
            var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
            guard let data = Data(base64Encoded: base64) else {
                throw APNsDoubleFailure("JWT \(what) is not base64url")
            }
            return data
        }
        do {
            header = try JSONDecoder().decode(Header.self, from: try decode(parts[0], "header"))
        } catch let error as APNsDoubleFailure { throw error } catch {
            throw APNsDoubleFailure("JWT header is not the expected JSON: \(error)")
        }
        do {
            claims = try JSONDecoder().decode(Claims.self, from: try decode(parts[1], "claims"))
        } catch let error as APNsDoubleFailure { throw error } catch {
            throw APNsDoubleFailure("JWT claims are not the expected JSON: \(error)")
        }
        let signature = try decode(parts[2], "signature")
        guard signature.count == 64 else {
            throw APNsDoubleFailure("JWT signature is \(signature.count) bytes, expected raw r||s (64)")
        }
        let ecdsa = try P256.Signing.ECDSASignature(rawRepresentation: signature)
        signatureIsValid = publicKey.isValidSignature(ecdsa, for: Data((parts[0] + "." + parts[1]).utf8))
        self.jwt = jwt
    }
}

/// What the double expects of every request.
struct APNsRequestExpectations: Sendable {
    let teamId: String
    let keyId: String
    let bundleId: String
    let publicKeyRaw: Data

    /// Apple's values, spelled out here rather than taken from the client under test.
    static let pushToTalk = "pushtotalk"
    static let maximumPayloadSize = 5120

    /// Checks one complete request received at `now`; returns what is wrong (empty if nothing) and what was decoded.
    func inspect(
        headers: [ReceivedAPNsRequest.Header], body: [UInt8], now: Date
    )
        -> (problems: [String], deviceToken: String?, token: DecodedProviderToken?, payload: PushPayload?)
    {
        var problems: [String] = []
        func value(_ name: String) -> String? {
            let values = headers.filter { $0.name == name }
            if values.count > 1 { problems.append("header \(name) appears \(values.count) times") }
            return values.first?.value
        }

        if value(":method") != "POST" { problems.append(":method is \(value(":method") ?? "missing"), expected POST") }
        if value(":scheme") != "https" {
            problems.append(":scheme is \(value(":scheme") ?? "missing"), expected https")
        }
        if value(":authority") == nil { problems.append(":authority is missing") }
        var deviceToken: String?
        let path = value(":path") ?? ""
        if path.hasPrefix("/3/device/"), case let hex = String(path.dropFirst("/3/device/".count)), !hex.isEmpty,
            hex.count % 2 == 0, hex.allSatisfy({ ("0"..."9").contains($0) || ("a"..."f").contains($0) })
        {
            deviceToken = hex
        } else {
            problems.append(":path is '\(path)', expected /3/device/<lowercase hex token>")
        }

        var token: DecodedProviderToken?
        if let authorization = value("authorization") {
            if authorization.hasPrefix("bearer ") {
                do {
                    let decoded = try DecodedProviderToken(
                        jwt: String(authorization.dropFirst("bearer ".count)),
                        publicKey: try P256.Signing.PublicKey(rawRepresentation: publicKeyRaw))
                    token = decoded
                    problems += check(decoded, now: now)
                } catch {
                    problems.append("provider token: \(error)")
                }
            } else {
                problems.append("authorization is not 'bearer <jwt>'")
            }
        } else {
            problems.append("authorization is missing")
        }

        let pushType = value("apns-push-type")
        if pushType == nil { problems.append("apns-push-type is missing") }
        let topic = value("apns-topic")
        if topic == nil { problems.append("apns-topic is missing") }
        if pushType == Self.pushToTalk {
            if topic != bundleId + ".voip-ptt" {
                problems.append("apns-topic is \(topic ?? "missing"), expected \(bundleId).voip-ptt")
            }
            if value("apns-priority") != "10" {
                problems.append("apns-priority is \(value("apns-priority") ?? "missing"), expected 10")
            }
            if value("apns-expiration") != "0" {
                problems.append("apns-expiration is \(value("apns-expiration") ?? "missing"), expected 0")
            }
        }
        if let contentType = value("content-type"), !contentType.lowercased().hasPrefix("application/json") {
            problems.append("content-type is \(contentType), expected application/json")
        }

        var payload: PushPayload?
        if body.count > Self.maximumPayloadSize { problems.append("body is \(body.count) bytes, over 5120") }
        if let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] {
            if pushType == Self.pushToTalk, (object["aps"] as? [String: Any])?.isEmpty != true {
                problems.append("payload's aps is not an empty object")
            }
            do {
                payload = try JSONDecoder().decode(PushPayload.self, from: Data(body))
            } catch {
                problems.append("payload is not a PushPayload: \(error)")
            }
        } else {
            problems.append("body is not a JSON object")
        }
        return (problems, deviceToken, token, payload)
    }

    private func check(_ token: DecodedProviderToken, now: Date) -> [String] {
        var problems: [String] = []
        if token.header.alg != "ES256" {
            problems.append("JWT alg is \(token.header.alg ?? "missing"), expected ES256")
        }
        if token.header.kid != keyId {
            problems.append("JWT kid is \(token.header.kid ?? "missing"), expected \(keyId)")
        }
        if token.claims.iss != teamId {
            problems.append("JWT iss is \(token.claims.iss ?? "missing"), expected \(teamId)")
        }
        if let iat = token.claims.iat {
            let age = now.timeIntervalSince1970 - TimeInterval(iat)
            if age > 3600 { problems.append("JWT iat is \(Int(age)) s old, over an hour (ExpiredProviderToken)") }
            if age < -60 { problems.append("JWT iat is \(Int(-age)) s in the future") }
        } else {
            problems.append("JWT iat is missing")
        }
        if !token.signatureIsValid { problems.append("JWT signature does not verify with the .p8 key") }
        return problems
    }
}

/// A scripted answer.
struct APNsDoubleAnswer: Sendable {
    var status: Int
    var reason: String?
    static let ok = APNsDoubleAnswer(status: 200, reason: nil)
}

/// The double's shared state: scripts, received requests, waiters, open connections.
final class APNsDoubleState: Sendable {
    private struct Waiter {
        var count: Int
        var continuation: CheckedContinuation<[ReceivedAPNsRequest], Error>
    }
    private struct Inner {
        var received: [ReceivedAPNsRequest] = []
        var scripts: [String: APNsDoubleAnswer] = [:]
        var defaultAnswer = APNsDoubleAnswer.ok
        var waiters: [UUID: Waiter] = [:]
        var channels: [ObjectIdentifier: Channel] = [:]
    }
    let expectations: APNsRequestExpectations
    private let inner = Mutex(Inner())

    init(expectations: APNsRequestExpectations) { self.expectations = expectations }

    func script(token: String, answer: APNsDoubleAnswer) { inner.withLock { $0.scripts[token] = answer } }
    func scriptDefault(_ answer: APNsDoubleAnswer) { inner.withLock { $0.defaultAnswer = answer } }
    func received() -> [ReceivedAPNsRequest] { inner.withLock { $0.received } }

    /// The answer for a request for `token`.
    func answer(for token: String?) -> APNsDoubleAnswer {
        inner.withLock { inner in token.flatMap { inner.scripts[$0] } ?? inner.defaultAnswer }
    }

    /// Records a request and wakes the waiters it satisfies.
    func record(_ request: ReceivedAPNsRequest) {
        let ready: [(CheckedContinuation<[ReceivedAPNsRequest], Error>, [ReceivedAPNsRequest])] = inner.withLock {
            inner in
            inner.received.append(request)
            let all = inner.received
            let satisfied = inner.waiters.filter { $0.value.count <= all.count }
            for id in satisfied.keys { inner.waiters[id] = nil }
            return satisfied.values.map { ($0.continuation, all) }
        }
        for (continuation, all) in ready { continuation.resume(returning: all) }
    }

    /// Suspends until at least `count` requests have arrived; throws `CancellationError` when cancelled.
    func requests(atLeast count: Int) async throws -> [ReceivedAPNsRequest] {
        let id = UUID()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let result: Result<[ReceivedAPNsRequest], Error>? = inner.withLock { inner in
                    if inner.received.count >= count { return .success(inner.received) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    inner.waiters[id] = Waiter(count: count, continuation: continuation)
                    return nil
                }
                if let result { continuation.resume(with: result) }
            }
        } onCancel: {
            let waiter = inner.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    func track(_ channel: Channel) {
        let key = ObjectIdentifier(channel)
        inner.withLock { $0.channels[key] = channel }
        channel.closeFuture.whenComplete { _ in self.inner.withLock { _ = $0.channels.removeValue(forKey: key) } }
    }

    func openChannels() -> [Channel] { inner.withLock { Array($0.channels.values) } }
}

/// Reads one request stream (HEADERS, then DATA until end of stream), records it, and answers.
final class APNsDoubleStreamHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private let state: APNsDoubleState
    private var headers: [ReceivedAPNsRequest.Header]?
    private var body: [UInt8] = []
    private var answered = false

    init(state: APNsDoubleState) { self.state = state }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .headers(let frame):
            if headers == nil {
                headers = frame.headers.map { ReceivedAPNsRequest.Header(name: $0.name, value: $0.value) }
            }
            if frame.endStream { finish(context: context) }
        case .data(let frame):
            if case .byteBuffer(let buffer) = frame.data { body += buffer.readableBytesView }
            if frame.endStream { finish(context: context) }
        default:
            break
        }
    }

    private func finish(context: ChannelHandlerContext) {
        guard !answered else { return }
        answered = true
        let headers = self.headers ?? []
        let inspection = state.expectations.inspect(headers: headers, body: body, now: Date())
        let answer = state.answer(for: inspection.deviceToken)
        let apnsID = headers.first { $0.name == "apns-id" }?.value ?? UUID().uuidString.lowercased()
        state.record(
            ReceivedAPNsRequest(
                method: headers.first { $0.name == ":method" }?.value,
                path: headers.first { $0.name == ":path" }?.value,
                scheme: headers.first { $0.name == ":scheme" }?.value,
                authority: headers.first { $0.name == ":authority" }?.value,
                headers: headers, body: body, payload: inspection.payload, deviceToken: inspection.deviceToken,
                providerToken: inspection.token, problems: inspection.problems, answeredStatus: answer.status,
                answeredAPNsID: apnsID))

        var responseBody: [UInt8] = []
        if answer.status != 200, let reason = answer.reason {
            var object: [String: Any] = ["reason": reason]
            if answer.status == 410 { object["timestamp"] = Int64(Date().timeIntervalSince1970 * 1000) }
            responseBody = Array((try? JSONSerialization.data(withJSONObject: object)) ?? Data())
        }
        var fields = [(":status", String(answer.status)), ("apns-id", apnsID)]
        if !responseBody.isEmpty { fields.append(("content-type", "application/json")) }
        context.write(
            wrapOutboundOut(.headers(.init(headers: .init(fields), endStream: responseBody.isEmpty))), promise: nil)
        if !responseBody.isEmpty {
            context.write(
                wrapOutboundOut(.data(.init(data: .byteBuffer(ByteBuffer(bytes: responseBody)), endStream: true))),
                promise: nil)
        }
        context.flush()
    }
}

/// The double's TLS material: a throwaway CA and a server certificate it signed for 127.0.0.1 and localhost.
enum APNsDoubleCertificates {
    static func make() throws -> (caPEM: String, serverDER: [UInt8], serverKeyPEM: String) {
        let now = Date()
        let caKey = P256.Signing.PrivateKey()
        let caName = try DistinguishedName { CommonName("pttrelay test APNs CA") }
        let ca = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(caKey.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(7 * 24 * 3600),
            issuer: caName, subject: caName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: Certificate.PrivateKey(caKey))
        let serverKey = P256.Signing.PrivateKey()
        let server = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(serverKey.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(7 * 24 * 3600),
            issuer: caName, subject: try DistinguishedName { CommonName("127.0.0.1") },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([
                    .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])), .dnsName("localhost"),
                ])
            },
            issuerPrivateKey: Certificate.PrivateKey(caKey))
        var serializer = DER.Serializer()
        try serializer.serialize(server)
        return (try ca.serializeAsPEM().pemString, serializer.serializedBytes, serverKey.pemRepresentation)
    }
}

/// What went wrong in the double: a malformed provider token, or requests that did not arrive in time.
public struct APNsDoubleFailure: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
