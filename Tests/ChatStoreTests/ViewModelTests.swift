import IRCWire
import Testing

@testable import ChatStore

@Suite struct ViewModelTests {
    func add(_ store: ChatStore, _ n: Int) {
        let bytes = line(UInt64(n))
        _ = try! store.ingest(bytes.span, receivedAt: Timestamp(milliseconds: Int64(n)))
    }

    @Test("the window is the last N entries: an index range, whatever N is", arguments: [1, 150, 2_500])
    func lastN(n: Int) {
        let store = ChatStore(windowSize: n)
        for k in 0..<3_000 { add(store, k) }
        let log = store.log(named: "c")!
        let w = store.viewModel.window(of: log)
        #expect(w.range == UInt64(3_000 - n)..<3_000)
        #expect(w.channel == log.index)
    }

    @Test("change sets are coalesced to one per interval and carry inserted, evicted and modified entries")
    func coalescing() throws {
        let store = ChatStore(capacity: 100, windowSize: 10, interval: 33)
        add(store, 0)
        let log = store.log(named: "c")!
        #expect(!store.viewModel.isObserved)
        let mailbox = store.viewModel.observe(channel: log.index)
        #expect(store.viewModel.isObserved)
        #expect(store.viewModel.publish(log, now: 0))
        let first = try #require(mailbox.take())
        #expect(first.window.range == 0..<1 && first.inserted == 0..<1)
        for k in 1...5 { add(store, k) }
        #expect(!store.viewModel.publish(log, now: 10))  // within the interval: held back
        #expect(mailbox.take() == nil)
        for k in 6...14 { add(store, k) }
        #expect(store.viewModel.publish(log, now: 40))
        let second = try #require(mailbox.take())
        #expect(second.window.range == 5..<15)
        #expect(second.inserted == 5..<15)  // 1...4 entered and left again: only what is visible
        #expect(second.evicted == 0..<1)
        #expect(!store.viewModel.publish(log, now: 80))  // nothing changed: nothing delivered
    }

    @Test("a slow observer gets one merged change set, not a backlog")
    func slowObserver() throws {
        let store = ChatStore(capacity: 100, windowSize: 10, interval: 0)
        add(store, 0)
        let log = store.log(named: "c")!
        let mailbox = store.viewModel.observe(channel: log.index)
        store.viewModel.publish(log, now: 0)
        _ = mailbox.take()
        var t: Int64 = 1
        for k in 1...30 {
            add(store, k)
            store.viewModel.publish(log, now: t)
            t += 1
        }
        let change = try #require(mailbox.take())
        #expect(change.coalesced == 30)
        #expect(change.window.range == 21..<31)
        #expect(change.inserted == 1..<31)
        #expect(change.evicted == 0..<21)
        #expect(mailbox.take() == nil)
    }

    @Test("moderation shows up as modified entries of the window")
    func modified() throws {
        let store = ChatStore(capacity: 100, windowSize: 10, interval: 0)
        for k in 0..<5 { add(store, k) }
        let log = store.log(named: "c")!
        let mailbox = store.viewModel.observe(channel: log.index)
        store.viewModel.publish(log, now: 0)
        _ = mailbox.take()
        let clear = Array("@target-msg-id=m3 :tmi.twitch.tv CLEARMSG #c :message 3".utf8)
        _ = try store.ingest(clear.span, receivedAt: .epoch)
        store.viewModel.publish(log, now: 1)
        let change = try #require(mailbox.take())
        #expect(change.modified.contains(3) && change.modified.count == 1)
        #expect(change.inserted == 5..<6)
    }

    @Test("resolving the window lends the ring's own bytes, in order")
    func resolve() throws {
        let store = ChatStore(capacity: 300, windowSize: 150)
        for k in 0..<1_000 { add(store, k) }
        let log = store.log(named: "c")!
        let reader = try #require(store.readers.makeReader())
        let w = store.viewModel.window(of: log)
        var texts: [String] = []
        log.ring.withEntries(in: w.range, reader: reader) { info, bytes in
            let r = info.parsed.lastParam(in: bytes)!
            texts.append(String(decoding: r.range.map { bytes[$0] }, as: UTF8.self))
        }
        #expect(texts == (850..<1_000).map { "message \($0)" })
    }

    /// Appends a line to channel `#c<channel>`.
    func add(_ store: ChatStore, channel: Int, _ n: Int) {
        let bytes = Array("@id=m\(n) :u!u@u PRIVMSG #c\(channel) :message \(n)".utf8)
        _ = try! store.ingest(bytes.span, receivedAt: Timestamp(milliseconds: Int64(n)))
    }

    @Test("a tick visits only the channels that changed since the last one, never all of them")
    func tickVisitsDirtyChannelsOnly() throws {
        let store = ChatStore(capacity: 100, windowSize: 10, interval: 33)
        for c in 0..<1_000 { add(store, channel: c, c) }
        #expect(store.viewModel.dirtyCount == 1_000)
        store.publish(now: 0)
        #expect(store.viewModel.visited == 1_000 && store.viewModel.deliveries == 1_000)
        #expect(store.viewModel.dirtyCount == 0)
        let mailbox = store.viewModel.observe(channel: store.log(named: "c5")!.index)
        store.publish(now: 100)
        _ = try #require(mailbox.take())
        let visited = store.viewModel.visited
        let deliveries = store.viewModel.deliveries
        add(store, channel: 5, 1_000)
        add(store, channel: 7, 1_001)
        add(store, channel: 5, 1_002)
        #expect(store.viewModel.dirtyCount == 2)
        store.publish(now: 200)
        #expect(store.viewModel.visited - visited == 2)  // channels 5 and 7, not 1,000
        #expect(store.viewModel.deliveries - deliveries == 2)
        let change = try #require(mailbox.take())
        #expect(change.inserted == 1..<3 && change.window.range == 0..<3)
        store.publish(now: 300)  // nothing dirty: nothing visited
        #expect(store.viewModel.visited - visited == 2)
    }

    @Test("ticks within the interval visit nothing; the next tick delivers one merged change set")
    func tickCoalescesInTime() throws {
        let store = ChatStore(capacity: 100, windowSize: 10, interval: 33)
        add(store, 0)
        let log = store.log(named: "c")!
        let mailbox = store.viewModel.observe(channel: log.index)
        store.publish(now: 0)
        #expect(try #require(mailbox.take()).inserted == 0..<1)
        let visited = store.viewModel.visited
        for k in 1...14 {
            add(store, k)
            store.publish(now: Int64(k))  // per line, as replay and watch call it: within the interval
        }
        #expect(store.viewModel.visited == visited)
        #expect(mailbox.take() == nil)
        let clear = Array("@target-msg-id=m12 :tmi.twitch.tv CLEARMSG #c :message 12".utf8)
        _ = try store.ingest(clear.span, receivedAt: .epoch)
        store.publish(now: 40)
        #expect(store.viewModel.visited == visited + 1)
        let change = try #require(mailbox.take())
        #expect(change.window.range == 6..<16)
        #expect(change.inserted == 6..<16 && change.evicted == 0..<1)
        #expect(change.modified.contains(12) && change.modified.count == 1)
        #expect(change.coalesced == 1)
    }

    @Test("a channel held back by its own interval stays dirty until a later tick publishes it")
    func heldBackStaysDirty() throws {
        let store = ChatStore(capacity: 100, windowSize: 10, interval: 33)
        add(store, 0)
        let log = store.log(named: "c")!
        let mailbox = store.viewModel.observe(channel: log.index)
        store.viewModel.publish(log, now: 30)  // a direct publish: the channel's own interval starts at 30
        _ = mailbox.take()
        add(store, 1)
        store.publish(now: 40)  // the store's first tick is due, the channel's interval is not
        #expect(mailbox.take() == nil)
        #expect(store.viewModel.dirtyCount == 1)
        store.publish(now: 80)
        #expect(try #require(mailbox.take()).inserted == 1..<2)
        #expect(store.viewModel.dirtyCount == 0)
    }

    @Test("a forced tick publishes every dirty channel at once, whatever the interval")
    func forcedTick() throws {
        let store = ChatStore(capacity: 100, windowSize: 10, interval: 1_000_000)
        add(store, 0)
        store.publish(now: 0)
        for c in 0..<3 { add(store, channel: c, c) }
        store.publish(now: 1)
        #expect(store.viewModel.dirtyCount == 3)
        store.publish(now: 2, force: true)
        #expect(store.viewModel.dirtyCount == 0)
        #expect(store.viewModel.deliveries == 4)
    }
}
