import PTTCore
import Testing

@Suite("Who is told of joins and leaves")
struct MemberEventPolicyTests {
    @Test("a member that says is told or not as it said; one that does not is told only in a channel up to the limit")
    func decisions() {
        let policy = MemberEventPolicy(upTo: 64)
        #expect(policy.tells(asked: nil, membersAfterJoin: 1))
        #expect(policy.tells(asked: nil, membersAfterJoin: 64))
        #expect(!policy.tells(asked: nil, membersAfterJoin: 65))
        #expect(policy.tells(asked: true, membersAfterJoin: 5000))
        #expect(!policy.tells(asked: false, membersAfterJoin: 1))
        #expect(!MemberEventPolicy(upTo: 0).tells(asked: nil, membersAfterJoin: 1))
    }
}
