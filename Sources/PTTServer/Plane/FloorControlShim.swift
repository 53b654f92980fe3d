import PTTCore

extension FloorControl {
    mutating func talkHeard(from candidate: FloorCandidate, memberCount: Int, implicitRequest: Bool,
                            now: PTTInstant) -> [FloorAction] {
        if holder == candidate.member { return mediaReceived(from: candidate.member, now: now) }
        if holder == nil, implicitRequest, !candidate.receiveOnly { return request(candidate, memberCount: memberCount, now: now) }
        return []
    }
}
