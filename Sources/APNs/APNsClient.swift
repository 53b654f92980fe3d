import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import NIOCore
import NIOSSL
import Synchronization

/// Sends notifications to APNs over one HTTP/2 connection (negotiated by ALPN; APNs speaks nothing else),
/// signing requests with a provider token shared by all of them.
///
/// Safe to call from any event loop. Call `shutdown()` before dropping it.
public final class APNsClient: Sendable {
    /// How long one send may take, connecting included, before it ends as `.failed`.
    public static let requestTimeout: TimeAmount = .seconds(5)

    /// The settings it was made with.
    public let settings: APNsSettings
    private let signingKey: APNsSigningKey
    private let http: HTTPClient
    private let tokens = Mutex(APNsTokenCache())
    private let logger: Logger
    /// How long one send may take here (`timeout`, else the settings' `timeoutMs`, else ``requestTimeout``).
    private let timeout: TimeAmount

    /// Loads the `.p8` key (and `caFile`, when set) and prepares the HTTP client on `eventLoopGroup`. No
    /// connection is made until the first send.
    /// - Parameter timeout: how long one send may take, connecting included; `nil` takes `settings.timeoutMs`, or
    ///   ``requestTimeout`` without it.
    /// - Throws: `APNsSettingsError` naming the setting and the file when a file is missing or unusable.
    public init(
        settings: APNsSettings, eventLoopGroup: EventLoopGroup, logger: Logger,
        timeout: TimeAmount? = nil
    ) throws(APNsSettingsError) {
        self.settings = settings
        self.logger = logger
        let timeout = timeout ?? settings.timeoutMs.map { .milliseconds(Int64($0)) } ?? Self.requestTimeout
        self.timeout = timeout
        signingKey = try APNsSigningKey.load(file: settings.keyFile)
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        if let caFile = settings.caFile { tls.trustRoots = .certificates(try Self.loadCertificates(caFile)) }
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls, redirectConfiguration: .disallow,
            timeout: .init(connect: timeout, read: timeout))
        configuration.httpVersion = .automatic
        // A wake is worth nothing late: fail at once when APNs cannot be reached and let the caller back off,
        // rather than retrying the connection until the deadline.
        configuration.connectionPool.retryConnectionEstablishment = false
        http = HTTPClient(
            eventLoopGroup: eventLoopGroup, configuration: configuration, backgroundActivityLogger: logger)
    }

    /// Sends `notification`. Never fails: transport errors become `.failed`. Completes on `eventLoop`.
    ///
    /// A `403 ExpiredProviderToken` answer invalidates the shared provider token (see `APNsTokenCache`).
    /// - Parameter now: the time used for the provider token's `iat` and age.
    public func send(
        _ notification: APNsNotification, on eventLoop: EventLoop, now: Date = Date()
    ) -> EventLoopFuture<APNsOutcome> {
        let logger = requestLogger(for: notification)

        guard notification.payload.count <= APNsNotification.maximumPayloadSize else {
            let outcome = APNsOutcome.rejected(status: 0, reason: "PayloadTooLarge")
            logger.notice(
                "APNs notification not sent: payload is \(notification.payload.count) bytes, the limit is \(APNsNotification.maximumPayloadSize)"
            )
            return eventLoop.makeSucceededFuture(outcome)
        }
        let token: APNsProviderToken
        do {
            token = try providerToken(now: now)
        } catch {
            logger.notice("APNs notification not sent: cannot sign a provider token: \(error)")
            return eventLoop.makeSucceededFuture(.rejected(status: 0, reason: "ProviderTokenUnavailable"))
        }
        let request: HTTPClient.Request
        do {
            request = try notification.request(baseURL: settings.baseURL, jwt: token.jwt, topic: settings.topic)
        } catch {
            logger.notice("APNs notification not sent: no request to \(settings.baseURL): \(error)")
            return eventLoop.makeSucceededFuture(.rejected(status: 0, reason: "InvalidEndpoint"))
        }

        logger.debug("APNs send")
        return http.execute(
            request: request, eventLoop: .indifferent,
            deadline: .now() + timeout, logger: nil
        )
        .map { response in
            APNsOutcome.answer(
                status: Int(response.status.code), body: response.body.map { Array($0.readableBytesView) } ?? [],
                apnsID: response.headers.first(name: "apns-id"))
        }
        .recover { error in .failed(reason: Self.describe(error)) }
        .hop(to: eventLoop)
        .map { outcome in
            self.note(outcome, now: now, logger: logger)
            return outcome
        }
    }

    /// The shared provider token's age at `now`; nil before the first send.
    public func providerTokenAge(now: Date) -> TimeInterval? {
        tokens.withLock { $0.age(now: now) }
    }

    /// Closes the connection and releases the HTTP client. Safe to call more than once.
    public func shutdown() async {
        try? await http.shutdown()
    }

    /// The client's logger with the token's prefix (never the whole token) and the push type.
    private func requestLogger(for notification: APNsNotification) -> Logger {
        var logger = self.logger
        logger[metadataKey: "apns-token"] = "\(notification.tokenPrefix)"
        logger[metadataKey: "apns-push-type"] = "\(notification.pushType)"
        return logger
    }

    private func providerToken(now: Date) throws -> APNsProviderToken {
        try tokens.withLock { cache in
            try cache.token(now: now) { now in
                try APNsProviderToken.make(
                    keyId: settings.keyId, teamId: settings.teamId, now: now, key: try signingKey.privateKey())
            }
        }
    }

    private func note(_ outcome: APNsOutcome, now: Date, logger: Logger) {
        switch outcome {
        case .sent:
            logger.debug("APNs \(outcome)")
        case .rejected:
            if outcome.action == .refreshProviderToken { tokens.withLock { $0.invalidate(now: now) } }
            logger.notice("APNs \(outcome)")
        case .failed:
            logger.notice("APNs \(outcome)")
        }
    }

    private static func loadCertificates(_ path: String) throws(APNsSettingsError) -> [NIOSSLCertificate] {
        guard FileManager.default.fileExists(atPath: path) else {
            throw .invalid("apns.caFile '\(path)' does not exist")
        }
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMFile(path)
        } catch {
            throw .invalid("apns.caFile '\(path)' is not a PEM file of certificates: \(error)")
        }
        guard !certificates.isEmpty else { throw .invalid("apns.caFile '\(path)' has no certificates") }
        return certificates
    }

    /// A short text for a transport error.
    private static func describe(_ error: Error) -> String {
        if let error = error as? HTTPClientError { return "\(error)" }
        if let error = error as? NIOSSLError { return "TLS: \(error)" }
        return String(describing: error)
    }
}
