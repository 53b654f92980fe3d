import PTTCore
import PTTProtocol
import PTTStore

extension PlaneEffect {
    /// A client's request that waited for storage was refused or failed with `error`: its answer, and the go-ahead
    /// for its connection's next request. `what` names what could not be stored ("membership", "token", ...).
    static func refused(
        _ session: ControlSession, re: Int?, _ error: any Error, storing what: String, storage: StorageQueue
    ) -> [PlaneEffect] {
        let refusal: PlaneEffect =
            switch error {
            case let refusal as JoinPlan.Refusal: .error(session, re: re, refusal.code, refusal.message)
            case let invalid as DirectoryError: .error(session, re: re, .badRequest, invalid.description)
            case let busy as DirectoryWritesBusy: .error(session, re: re, .internal, busy.description)
            default: .error(session, re: re, .internal, "could not store the \(what): \(storage.describe(error))")
            }
        return [refusal, .requestAnswered(session)]
    }
}
