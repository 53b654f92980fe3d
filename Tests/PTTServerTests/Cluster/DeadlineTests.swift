import Dispatch
import Testing

@testable import PTTServer

/// `withinDeadline`, which keeps a stopping cluster node from waiting forever for a query that does not end on
/// cancellation.
@Suite("Waits with a deadline")
struct DeadlineTests {
    @Test func anOperationThatAnswersInTimeGivesItsValue() async {
        let value = await withinDeadline(.seconds(20)) { 42 }
        #expect(value == 42)
    }

    /// The operation ignores cancellation (a continuation that another thread resumes 3 s later), as a query on a
    /// silent connection does: the wait still ends at its deadline, with nil.
    @Test func anOperationThatIgnoresCancellationIsLeftAtTheDeadline() async {
        let value = await withinDeadline(.milliseconds(100)) {
            await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
                DispatchQueue.global().asyncAfter(deadline: .now() + 3) { continuation.resume(returning: 7) }
            }
        }
        #expect(value == nil)
    }
}
