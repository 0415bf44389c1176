@testable import ChatStore
import IRCWire
import Testing

@Suite struct ViewModelTests {
    func add(_ store: ChatStore, _ n: Int) {
        let bytes = line(UInt64(n))
        _ = try! store.ingest(bytes.span, receivedAt: Int64(n))
    }

    @Test("the window is the last N entries: an index range, whatever N is", arguments: [1, 150, 2_500])
    func lastN(n: Int) {
        let store = ChatStore(windowSize: n)
        for k in 0..<3_000 { add(store, k) }
        let log = store.log(named: "c")!
        let w = store.viewModel.window(of: log)
        #expect(w.range == UInt64(3_000 - n)..<3_000)
        #expect(w.channel == log.index && w.generation == 0)
    }

    @Test("change sets are coalesced to one per interval and carry inserted, evicted and modified entries")
    func coalescing() throws {
        let store = ChatStore(capacity: 100, windowSize: 10, interval: 33)
        add(store, 0)
        let log = store.log(named: "c")!
        let mailbox = store.viewModel.observe(channel: log.index)
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
        _ = try store.ingest(clear.span, receivedAt: 0)
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
}
