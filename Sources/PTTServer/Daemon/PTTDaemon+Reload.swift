import APNs
import Foundation
import Logging
import NIOCore
import NIOSSL
import PTTProtocol
import PTTRelay

/// Why a reload did not happen; the running configuration stays as it was.
public enum ReloadError: Error, CustomStringConvertible, Equatable {
    /// The config file, a flag or the certificate is unusable: the message names the file and the setting.
    case invalid(String)
    /// Another reload is under way.
    case busy
    /// The server is not running, or was made without a ``ConfigurationSource``.
    case unavailable(String)

    public var description: String {
        switch self {
        case .invalid(let message): "the configuration was not applied: \(message); the running configuration stays"
        case .busy: "another reload is under way; try again when it is done"
        case .unavailable(let why): why
        }
    }
}

extension PTTDaemon {
    /// Reads the configuration again (SIGHUP, `pttctl reload`) and applies what can change in a running server,
    /// without dropping a connection or a talk burst: floor timers (from the next grant), wake and APNs settings,
    /// catch-up and recording, limits and deadlines (for connections accepted from now on), heartbeats (for
    /// sessions from now on), the log level, and the TLS certificate (re-read from its files: new connections get
    /// it). Listening addresses and ports, TLS on or off, media protection and connection budgets need a restart:
    /// they are reported and the running values stay. A configuration that does not read or check is refused
    /// whole, naming the setting.
    public func reload() async throws(ReloadError) -> ReloadReport {
        guard let running, let source else {
            throw .unavailable(
                running == nil ? "the server is not running" : "this server was started without a configuration file")
        }
        let begun = live.withLockedValue { live in
            defer { live.reloading = true }
            return !live.reloading
        }
        guard begun else { throw .busy }
        defer { live.withLockedValue { $0.reloading = false } }
        do {
            return try await apply(source.read, to: running, file: source.file())
        } catch {
            metrics.operations.reloads[.refused]?.increment()
            logger.error("configuration reload refused", metadata: ["error": "\(error)"])
            throw error
        }
    }

    /// Checks everything first (file, certificate, APNs credentials), then changes each part on its own thread.
    private func apply(
        _ read: () throws(ConfigurationError) -> ServerConfiguration, to running: Running, file: String?
    ) async throws(ReloadError) -> ReloadReport {
        let (old, oldIdentity) = live.withLockedValue { ($0.configuration, $0.identity) }
        let wanted: ServerConfiguration
        do { wanted = try read() } catch { throw .invalid(error.description) }
        let changes = ConfigurationChanges(from: old, to: wanted)
        let next = wanted.keepingRestartSettings(of: old)
        var identity = oldIdentity
        var tls = running.settings.current.tls
        if next.tls {
            do {
                identity = try TLSIdentity.resolve(next, in: dataDirectory).0
                tls = try Self.tlsContext(identity!, next)
            } catch let error as ConfigurationError {
                throw .invalid(error.description)
            } catch {
                throw .invalid("tlsCertificate: \(error)")
            }
        }
        let apns: ControlPlane.APNsChange
        if next.apns != old.apns {
            do {
                apns = .replace(
                    try next.apns.map { try APNsClient(settings: $0, eventLoopGroup: group, logger: logger) })
            } catch {
                throw .invalid("apns: \(error)")
            }
        } else {
            apns = .keep
        }
        // Checked: now applied, part by part, each on its own thread between two of its events.
        let plane = running.plane
        let replaced = try? await plane.eventLoop.submit { plane.reconfigure(next, apns: apns) }.get()
        try? await running.relay.reconfigure(
            MediaRelay.Settings(
                implicitFloorRequest: next.implicitFloorRequest, silenceTimeout: next.mediaSilenceTimeout,
                catchUp: next.catchUp, maxBurstDuration: next.floor.maxTalkTime + next.floor.endOfMediaTimeout)
        ).get()
        try? await running.recorder.reconfigure(next.recording).get()
        running.settings.replace(with: .init(configuration: next, tls: tls))
        running.control.update(limits: next.limits)
        running.web?.update(limits: next.limits)
        if let logLevels { logLevels.current = next.logLevel ?? .info }
        let certificateChanged = identity?.fingerprint != oldIdentity?.fingerprint
        let info = live.withLockedValue { live -> RuntimeInfo? in
            live.configuration = next
            live.identity = identity
            if case .replace(let client) = apns {
                if let replaced = replaced ?? nil { live.retiredAPNs.append(replaced) }
                live.apns = client
            }
            live.info?.fingerprint = identity?.fingerprint
            return live.info
        }
        if let replaced = replaced ?? nil { retireLater(replaced) }
        if certificateChanged, let identity {
            if let info { try? writeRuntimeInfo(info) }
            certificateLoaded(identity)
            logger.notice(
                "TLS certificate changed: new connections get the new one; clients that pinned the old one must accept it",
                metadata: [
                    "sha256": "\(identity.fingerprint)", "was": "\(oldIdentity?.fingerprint ?? "none")",
                    "file": "\(identity.certificateFile)",
                ])
        }
        metrics.operations.reloads[.applied]?.increment()
        logger.notice(
            changes.live.isEmpty ? "configuration reloaded: nothing to change" : "configuration reloaded",
            metadata: [
                "file": "\(file ?? "none")", "applied": "\(changes.live.joined(separator: ","))",
                "certificateChanged": "\(certificateChanged)",
            ])
        if !changes.needsRestart.isEmpty {
            logger.warning(
                "changed settings need a restart; the running values stay until then",
                metadata: ["settings": "\(changes.needsRestart.joined(separator: ","))"])
        }
        return ReloadReport(
            configFile: file, applied: changes.live, needsRestart: changes.needsRestart,
            certificateChanged: certificateChanged, certificate: identity?.report(now: wallClock.now()))
    }

    /// An APNs client a reload replaced: its requests in flight get a minute to finish before it closes.
    private func retireLater(_ client: APNsClient) {
        Task { [weak self] in
            try? await Task.sleep(for: .seconds(60))
            guard let self else { return }
            let retired = self.live.withLockedValue { live -> Bool in
                guard let at = live.retiredAPNs.firstIndex(where: { $0 === client }) else { return false }
                live.retiredAPNs.remove(at: at)
                return true
            }
            if retired { await client.shutdown() }
        }
    }

    /// `POST /api/reload`.
    func reloadResponse() async -> AdminResponse {
        do {
            return .json(try await reload())
        } catch .invalid(let message) {
            return .error(AdminError(.invalidConfiguration, ReloadError.invalid(message).description))
        } catch .busy {
            return .error(AdminError(.conflict, ReloadError.busy.description))
        } catch {
            return .error(AdminError(.notFound, error.description))
        }
    }

    /// `GET /api/certificate`.
    func certificateResponse() -> AdminResponse {
        guard let identity = live.withLockedValue({ $0.identity }) else {
            return .error(AdminError(.notFound, "TLS is off (--no-tls): clients are given no certificate"))
        }
        return .json(identity.report(now: wallClock.now()))
    }

    /// The TLS context for an identity: TLS 1.2 or newer, and a peer that never answers our close_notify (dead
    /// link, stalled handshake) does not hold the socket longer than the close grace period.
    static func tlsContext(_ identity: TLSIdentity, _ configuration: ServerConfiguration) throws -> NIOSSLContext {
        var tls = try identity.serverConfiguration()
        tls.shutdownTimeout = .nanoseconds(configuration.limits.closeGrace.nanoseconds)
        return try NIOSSLContext(configuration: tls)
    }

    /// The expiry gauge, and a warning when the certificate expires within 30 days (or has).
    func certificateLoaded(_ identity: TLSIdentity) {
        guard let notAfter = identity.notValidAfter else { return }
        metrics.operations.certificateExpiry.set(notAfter.timeIntervalSince1970)
        let days = Int((notAfter.timeIntervalSince(wallClock.now()) / 86_400).rounded(.down))
        if days < 30 {
            logger.warning(
                days < 0
                    ? "the TLS certificate has EXPIRED: clients that check dates refuse it"
                    : "the TLS certificate expires soon",
                metadata: ["notAfter": "\(notAfter.iso8601)", "days": "\(days)", "file": "\(identity.certificateFile)"])
        }
    }

    /// Writes `runtime.json` (where the server listens, the certificate's fingerprint) and keeps it for
    /// ``runtimeInfo``.
    func writeRuntimeInfo(_ info: RuntimeInfo) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try dataDirectory.writePrivate(try encoder.encode(info), to: dataDirectory.runtimeInfo)
        live.withLockedValue { $0.info = info }
    }
}
