import NIOCore
import PTTCore

/// Scan lists on the relay (Docs/PROTOCOL.md 5.45): each scanning device's scanned memberships, highest priority
/// first. Of those whose channel has a burst now (a floor holder, or a release's grace), the first is the one the
/// device hears; its other scanned memberships skip live copies (``RelayMember/scanElsewhere``, folded into the one
/// flag the fan-out reads), so the plain fan-out costs nothing more. Settled again whenever a scanned channel's floor
/// changes, never per packet. When a lower channel is heard again while its burst goes on, it resumes live or, with
/// `catchUp`, from the first packet the member missed (the channel's kept burst).
final class RelayScans {
    private struct ScanList {
        var members: [MemberID]
        var catchUp: Bool
        var hearing: ChannelID?
        /// When each member stopped hearing its channel because a higher one was heard.
        var leftAt: [MemberID: NIODeadline] = [:]
    }

    private unowned let relay: MediaRelay
    private var lists: [String: ScanList] = [:]
    private var listsByChannel: [ChannelID: Set<String>] = [:]
    private var listByMember: [MemberID: String] = [:]

    init(relay: MediaRelay) {
        self.relay = relay
    }

    /// A device's scan list (`device`: any key unique per device), highest priority first; empty: it stops
    /// scanning and hears every channel again.
    func set(_ device: String, _ members: [MemberID], catchUp: Bool) {
        if let old = lists.removeValue(forKey: device) {
            for id in old.members {
                listByMember[id] = nil
                relay.membersByID[id]?.scanElsewhere = false
            }
        }
        if !members.isEmpty {
            lists[device] = ScanList(members: members, catchUp: catchUp)
            for id in members { listByMember[id] = device }
        }
        rebuildChannelIndex()
        if !members.isEmpty { settle(device, now: relay.clock()) }
    }

    /// A channel's floor changed (holder, release, end of a release's grace): the lists that scan it settle again.
    func floorChanged(_ channel: ChannelID) {
        guard !listsByChannel.isEmpty, let devices = listsByChannel[channel] else { return }
        let now = relay.clock()
        for device in devices { settle(device, now: now) }
    }

    /// A scanned member's relay state was made again (a re-join): its flag is set again.
    func memberChanged(_ id: MemberID) {
        guard let device = listByMember[id] else { return }
        rebuildChannelIndex()
        settle(device, now: relay.clock())
    }

    /// A lower channel heard again while its burst goes on: from the first packet the member missed, faster than
    /// real time (the catch-up speed) until it is live.
    private func catchUp(_ member: RelayMember, missedSince: NIODeadline, now: NIODeadline) {
        let keeping = relay.keeping
        guard keeping.keepsBursts, !member.isPlaying, let buffer = relay.channels[member.channel]?.burst, buffer.isOpen,
            !buffer.isEmpty
        else { return }
        let from = max(buffer.firstRetained, buffer.firstIndex(arrivedAfter: missedSince))
        guard from < buffer.endIndex else { return }
        keeping.startCatchUp(member, with: buffer, from: from, now: now)
    }

    private func rebuildChannelIndex() {
        listsByChannel = [:]
        for (device, list) in lists {
            for id in list.members {
                if let channel = relay.membersByID[id]?.channel { listsByChannel[channel, default: []].insert(device) }
            }
        }
    }

    /// Picks the channel the device hears, flags the others, and reports a switch.
    private func settle(_ device: String, now: NIODeadline) {
        guard var list = lists[device] else { return }
        let members = list.members.compactMap { relay.membersByID[$0] }
        let hearing = members.first { member in
            guard let state = relay.channels[member.channel] else { return false }
            return state.holder != nil || state.lateAudio != nil
        }?.channel
        for member in members {
            let elsewhere = hearing != nil && member.channel != hearing
            if elsewhere, !member.scanElsewhere {
                list.leftAt[member.config.id] = now
                // A higher channel wins over a lower one's catch-up too.
                if member.isPlaying { relay.keeping.endPlayback(of: member, .cancelled) }
            }
            if !elsewhere, member.scanElsewhere {
                member.scanElsewhere = false
                if list.catchUp, let left = list.leftAt.removeValue(forKey: member.config.id) {
                    catchUp(member, missedSince: left, now: now)
                }
            }
            member.scanElsewhere = elsewhere
        }
        let switched = list.hearing != hearing
        list.hearing = hearing
        lists[device] = list
        if switched, let first = list.members.first {
            relay.report?(.scanSwitched(first, hearing: hearing))
        }
    }
}
