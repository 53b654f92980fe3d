import PTTStore

/// A join batch that meets another node's change: two nodes creating the same channel at once, or a channel
/// deleted on one node while members join it on another. The write is refused whole (``StorageConflict``); the node
/// reloads the directory, which now holds the other node's change, and plans every join of the batch again against
/// it: a join adopts the channel the other node created, or creates again the one it deleted, and the joins of
/// other channels in the batch are stored with them.
extension Memberships {
    /// How many times a batch is written before its joins are refused: each conflict means another node changed
    /// the directory first, and each new plan starts from that change.
    static let storeAttempts = 4

    /// Writes `batch`'s changes and applies them; on a conflict, reloads the directory and plans the batch again,
    /// at most ``storeAttempts`` times. Returns the batch as stored (its entries' answers are those to send).
    func store(_ batch: JoinBatch) throws -> JoinBatch {
        var batch = batch
        var attempt = 1
        while true {
            do {
                let write = batch.write
                try plane.store.write(write)
                plane.applyStored(write)
                return batch
            } catch let conflict as StorageConflict where attempt < Self.storeAttempts {
                plane.logger.info(
                    "a join batch met another node's change: planning it again",
                    metadata: [
                        "joins": "\(batch.entries.count)", "attempt": "\(attempt)", "conflict": "\(conflict.reason)",
                    ])
                attempt += 1
                try plane.reloadStoredDirectory()
                batch = planAgain(batch)
            } catch {
                plane.logger.error("storage write failed", metadata: ["error": "\(plane.store.describe(error))"])
                throw error
            }
        }
    }

    /// `batch`'s joins planned again, in order, against the directory as stored now. A join refused now (its
    /// channel gone where joins do not create channels, its user removed) keeps its place with its refusal.
    private func planAgain(_ batch: JoinBatch) -> JoinBatch {
        var again = JoinBatch()
        for var entry in batch.entries {
            var planning = again.takeDirectory() ?? plane.directory
            guard entry.refusal == nil else {
                again.add(entry, changes: [], directory: planning)
                continue
            }
            do {
                let plan = try JoinPlan.make(
                    entry.request, device: entry.device, in: &planning, configuration: context.configuration,
                    now: context.wallClock.now())
                entry.channel = plan.channel
                entry.membership = plan.membership
                entry.isNew = plan.isNew
                entry.createdChannel = plan.createdChannel
                entry.others = plan.others
                entry.answer = joined(for: plan.membership, re: entry.request.id, in: planning)
                again.add(entry, changes: plan.changes, directory: planning)
            } catch {
                // `planning` may hold part of the refused plan: start again from what the batch plans.
                entry.refusal = error
                var kept = plane.directory
                kept.apply(again.changes)
                again.add(entry, changes: [], directory: kept)
            }
        }
        return again
    }
}
