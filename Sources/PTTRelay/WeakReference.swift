/// A weak reference, for a repeated task's closure: bound to the relay's loop with `NIOLoopBound` (the closure must be
/// `Sendable`), it lets the object go while its timer still runs, where a strong capture would make a cycle (the
/// object holds its `RepeatedTask`, the task its closure) that only a cancel breaks.
struct WeakReference<Object: AnyObject> {
    weak var object: Object?

    init(_ object: Object) {
        self.object = object
    }
}
