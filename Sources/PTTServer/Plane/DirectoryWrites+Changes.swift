import NIOCore
import PTTCore
import PTTProtocol
import PTTStore

extension DirectoryWrites {
    /// Plans a change in its turn with every other directory write (``DirectoryWrites``), against the directory
    /// as stored then; the future answers with what `plan`'s second part returns once the change is stored, or
    /// fails with an ``AdminError``: the plan's own, 503 when storage is not keeping up, 409 when another node's
    /// change wins every attempt, 500 when storage fails.
    func change<T>(
        _ plan: @escaping (ChannelDirectory) throws(AdminError) -> (changes: [DirectoryChange], stored: () -> T)
    ) -> EventLoopFuture<T> {
        let promise = plane.eventLoop.makePromise(of: T.self)
        submit(
            DirectoryOperation(
                plan: { directory in
                    let (changes, stored) = try plan(directory)
                    directory.apply(changes)
                    return PlannedChange(
                        changes: changes, stored: { promise.succeed(stored()) },
                        failed: { promise.fail(Self.adminError($0, storage: self.plane.storage)) })
                },
                refused: { promise.fail(Self.adminError($0, storage: self.plane.storage)) }))
        return promise.futureResult
    }

    /// What an admin client is told when a change is refused or fails.
    static func adminError(_ error: any Error, storage: StorageQueue) -> AdminError {
        switch error {
        case let error as AdminError: error
        case let conflict as StorageConflict: AdminError(.conflict, "\(conflict); try again")
        case let busy as DirectoryWritesBusy: AdminError(.unavailable, busy.description)
        default: AdminError(.internal, "could not store the change: \(storage.describe(error))")
        }
    }
}
