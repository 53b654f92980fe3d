import NIOConcurrencyHelpers
import NIOSSL
import PTTProtocol

/// Checks the server certificate against a ``TrustStore`` during the TLS handshake and remembers the outcome.
final class PinCheck: Sendable {
    struct Mismatch {
        var expected: String
        var actual: String
    }
    private struct State {
        var mismatch: Mismatch?
        var pinnedNow = false
        var fingerprint: String?
        /// Why the known hosts file could not be checked or written (the handshake then fails).
        var failure: KnownHostsError?
    }
    private let state = NIOLockedValueBox(State())

    var mismatch: Mismatch? { state.withLockedValue { $0.mismatch } }
    var pinnedNow: Bool { state.withLockedValue { $0.pinnedNow } }
    var fingerprint: String? { state.withLockedValue { $0.fingerprint } }
    var failure: KnownHostsError? { state.withLockedValue { $0.failure } }

    func verify(
        _ certificates: [NIOSSLCertificate], endpoint: String, trust: any TrustStore
    ) -> NIOSSLVerificationResult {
        guard let leaf = certificates.first, let der = try? leaf.toDERBytes() else { return .failed }
        let fingerprint = Fingerprint.sha256(der)
        state.withLockedValue { $0.fingerprint = fingerprint }
        let verdict: TrustVerdict
        do { verdict = try trust.verdict(for: endpoint, fingerprint: fingerprint) } catch {
            let failure = (error as? KnownHostsError) ?? .unwritable(path: trust.location, reason: "\(error)")
            state.withLockedValue { $0.failure = failure }
            return .failed
        }
        switch verdict {
        case .trusted:
            return .certificateVerified
        case .pinnedNow:
            state.withLockedValue { $0.pinnedNow = true }
            return .certificateVerified
        case .changed(let expected):
            state.withLockedValue { $0.mismatch = Mismatch(expected: expected, actual: fingerprint) }
            return .failed
        }
    }
}
