import Foundation

/// The one provider token shared by all APNs requests, and when to make the next one.
///
/// Apple's rules: refresh no more than once every 20 minutes and no less than once an hour. The cache reuses
/// a token until it is 40 minutes old, so it is always replaced between 20 and 60 minutes of age. After
/// `403 ExpiredProviderToken`, `invalidate(now:)` asks for an early replacement, which still waits until the
/// token is 20 minutes old (until then the current token is kept and the request is pending).
///
/// Pure: every call takes the current time; signing is done by the closure the caller passes.
struct APNsTokenCache: Sendable {
    /// A token this old is replaced on the next request.
    static let refreshAge: TimeInterval = 40 * 60
    /// No token is replaced before this age, even after `invalidate(now:)`.
    static let minimumAge: TimeInterval = 20 * 60
    /// A token whose `iat` is further than this in the future (the clock went back) is replaced.
    static let clockSkew: TimeInterval = 60

    /// The token in use, if one has been made.
    private(set) var current: APNsProviderToken?
    /// APNs said the current token has expired: replace it as soon as the 20-minute minimum allows.
    private(set) var invalidated = false

    /// The token to send at `now`: the current one, or a new one from `make` when it is due.
    mutating func token(now: Date, make: (Date) throws -> APNsProviderToken) rethrows -> APNsProviderToken {
        if let current, !isDue(current, now: now) { return current }
        let token = try make(now)
        current = token
        invalidated = false
        return token
    }

    /// APNs answered `403 ExpiredProviderToken`: the next request gets a new token, unless the current one is
    /// younger than 20 minutes (then it is kept, and replaced once it reaches 20 minutes). `now` is when APNs
    /// answered; the decision itself is made by the next `token(now:make:)`, from the token's age then.
    mutating func invalidate(now: Date) {
        guard current != nil else { return }
        invalidated = true
    }

    /// The current token's age at `now`, nil before the first request.
    func age(now: Date) -> TimeInterval? { current?.age(now: now) }

    private func isDue(_ token: APNsProviderToken, now: Date) -> Bool {
        let age = token.age(now: now)
        if age < -Self.clockSkew { return true }
        if age >= Self.refreshAge { return true }
        return invalidated && age >= Self.minimumAge
    }
}
