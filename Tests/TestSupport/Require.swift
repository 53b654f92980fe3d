/// A test failed for a reason it describes (thrown by the helpers; Swift Testing reports it as the test's error).
public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// `#require` for use outside test functions: the value, or a ``TestFailure`` naming `what` is missing.
public func require_<T>(_ value: T?, _ what: String = "value") throws -> T {
    guard let value else { throw TestFailure("missing \(what)") }
    return value
}
