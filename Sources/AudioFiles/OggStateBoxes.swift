internal import COgg

// libogg's sync and stream states hold malloc'd buffers and must not move in memory, so they
// live on the heap in these boxes. The public value types keep a box and copy it on write
// (`isKnownUniquelyReferenced`), using the deep-copy helpers in the COgg shim. A box is only
// mutated while uniquely referenced, so sharing one between copies across threads is safe
// (the same argument as for Array), hence `@unchecked Sendable`.

/// Owns one `ogg_sync_state` (byte stream → pages).
final class OggSyncBox: @unchecked Sendable {
    let state: UnsafeMutablePointer<ogg_sync_state>

    init() {
        state = .allocate(capacity: 1)
        ogg_sync_init(state)
    }

    init(copying other: OggSyncBox) {
        state = .allocate(capacity: 1)
        guard cogg_sync_copy(state, other.state) == 0 else {
            fatalError("out of memory copying an Ogg sync state")
        }
    }

    deinit {
        ogg_sync_clear(state)
        state.deallocate()
    }
}

/// Owns one `ogg_stream_state` (pages ↔ packets of one logical bitstream).
final class OggStreamBox: @unchecked Sendable {
    let state: UnsafeMutablePointer<ogg_stream_state>

    init(serial: Int32) {
        state = .allocate(capacity: 1)
        ogg_stream_init(state, serial)
    }

    init(copying other: OggStreamBox) {
        state = .allocate(capacity: 1)
        guard cogg_stream_copy(state, other.state) == 0 else {
            fatalError("out of memory copying an Ogg stream state")
        }
    }

    deinit {
        ogg_stream_clear(state)
        state.deallocate()
    }
}
