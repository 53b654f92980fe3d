#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// File descriptors the process may open, and how many of them control connections may take.
///
/// At start `pttd` raises its soft `RLIMIT_NOFILE` to the hard limit, then keeps a reserve for
/// everything that is not a control connection (admin connections, the database, the relay socket,
/// APNs, log and certificate files), so a full control port can never starve the admin API.
struct DescriptorBudget: Equatable {
    /// The soft limit after raising it.
    var limit: Int
    /// Control connections allowed: the configured maximum, or fewer if descriptors do not allow it.
    var maxControlConnections: Int

    /// Descriptors kept for everything but control and admin connections.
    static let reserve = 128

    static func raise(configuredMax: Int, adminMaxConnections: Int) -> DescriptorBudget {
        var limits = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0 else {
            return DescriptorBudget(limit: -1, maxControlConnections: configuredMax)
        }
        if limits.rlim_cur < limits.rlim_max {
            var raised = limits
            raised.rlim_cur = limits.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limits = raised }
        }
        let soft = limits.rlim_cur == rlim_t.max ? Int.max : Int(clamping: limits.rlim_cur)
        return DescriptorBudget(
            limit: soft,
            maxControlConnections: allowed(
                configuredMax: configuredMax, adminMaxConnections: adminMaxConnections, limit: soft))
    }

    /// Connections that fit under `limit` descriptors after the reserve and the admin connections (at least 1).
    static func allowed(configuredMax: Int, adminMaxConnections: Int, limit: Int) -> Int {
        let available = limit == Int.max ? Int.max : limit - reserve - adminMaxConnections
        return max(1, min(configuredMax, available))
    }
}
