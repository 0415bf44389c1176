// libFuzzer entry for `make fuzz`: compiled together with Sources/IRCWire into one module (see the
// Makefile), so it calls the parser directly. Every range the parser returns is read back through a
// bounds-checked Span, so an out-of-range offset crashes the run.

// One framer for the whole run (reset per input), as the ingest loop keeps one per connection. A
// small limit so that over-long lines and resynchronisation are exercised too.
nonisolated(unsafe) private var framer = LineFramer(maxLineLength: 512, bufferCapacity: 4096)

// One message parsed into over and over (``TwitchMessage/reparse(_:tags:)``), as a parse-ahead block's
// slot is: each input's parse must leave nothing of the one before.
nonisolated(unsafe) private var reused = try! TwitchMessage(
    parsing: Array("@a=1;id=x :n!n@n PRIVMSG #old :old".utf8).span)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = unsafe Span(_unsafeElements: UnsafeBufferPointer(start: data, count: size))
    // The whole input as one line: libFuzzer's copy ends exactly where the input does, so a scan that
    // reads past the last byte is caught by the address sanitizer.
    agree(input)
    framer.reset()
    var lines = 0
    framer.feed(input) { event, framer in
        guard case .line(let line) = event else { return }
        lines += 1
        framer.withBytes(of: line) { bytes in exercise(bytes) }
        checkCarriageReturns(line, framer)
    }
    if case .line(let line)? = framer.finish() {
        framer.withBytes(of: line) { bytes in exercise(bytes) }
        checkCarriageReturns(line, framer)
    }
    precondition(framer.lineCount >= lines)
    return 0
}

/// The CRs the framer counted in the scan that found the line's end are the line's CRs.
private func checkCarriageReturns(_ line: FramedLine, _ framer: borrowing LineFramer) {
    let counted = framer.carriageReturns(in: line)
    let actual = framer.withBytes(of: line) { bytes in
        var n = 0
        for i in 0..<bytes.count where bytes[i] == 0x0D { n += 1 }
        return n
    }
    precondition(counted == actual, "the framer counted \(counted) CRs in a line that holds \(actual)")
}

/// The one-pass parse (``TwitchMessage/parse(_:tags:)``: the tags sorted in the walk that finds their end)
/// agrees with the two passes (``ParsedLine/parse(_:)``, then the tags sorted): the same line, the
/// same error, the same slots and counts.
private func agree(_ bytes: Span<UInt8>) {
    var onePass: Result<TwitchMessage, LineError>
    do throws(LineError) { onePass = .success(try TwitchMessage.parse(bytes)) } catch { onePass = .failure(error) }
    var twoPass: Result<ParsedLine, LineError>
    do throws(LineError) { twoPass = .success(try ParsedLine.parse(bytes)) } catch { twoPass = .failure(error) }
    // The same parse into a value that held the previous input's line (as a parse-ahead block's
    // slot does): nothing of the old line may stay.
    do throws(LineError) {
        try reused.reparse(bytes)
        guard case .success(let fresh) = onePass else { preconditionFailure("a reparse parsed what a parse refused") }
        precondition(reused.line == fresh.line && reused.command == fresh.command, "a reparse parsed apart")
        precondition(reused.channel == fresh.channel, "a reparse found another channel")
        precondition(reused.tags.count == fresh.tags.count && reused.tags.isRegular == fresh.tags.isRegular)
        precondition(reused.tags.msgParamCount == fresh.tags.msgParamCount)
        precondition(reused.tags.unknownCount == fresh.tags.unknownCount)
        for key in TwitchTagKey.allCases {
            precondition(reused.tags[key] == fresh.tags[key], "reparsed slot \(key) apart")
        }
    } catch {
        guard case .failure(let e) = onePass else { preconditionFailure("a reparse refused what a parse parsed") }
        precondition(e == error, "a reparse failed apart")
    }
    // The parse that sorts only the times (`stats`): the same line or error, the same two slots.
    do throws(LineError) {
        let times = try TwitchMessage.parse(bytes, tags: .times)
        guard case .success(let fresh) = onePass else {
            preconditionFailure("the times' parse parsed what a parse refused")
        }
        precondition(times.line == fresh.line && times.command == fresh.command && times.channel == fresh.channel)
        precondition(times.tags[.time] == fresh.tags[.time], "the times' parse found another time")
        precondition(times.tags[.tmiSentTs] == fresh.tags[.tmiSentTs], "the times' parse found another tmi-sent-ts")
    } catch {
        guard case .failure(let e) = onePass else {
            preconditionFailure("the times' parse refused what a parse parsed")
        }
        precondition(e == error, "the times' parse failed apart")
    }
    switch (onePass, twoPass) {
    case (.failure(let a), .failure(let b)): precondition(a == b, "one pass and two passes fail apart")
    case (.success(let fast), .success(let line)):
        precondition(fast.line == line, "one pass and two passes parse apart")
        let slow = TwitchMessage(line, in: bytes)
        precondition(fast.tags.count == slow.tags.count && fast.tags.isRegular == slow.tags.isRegular)
        precondition(fast.tags.msgParamCount == slow.tags.msgParamCount)
        precondition(fast.tags.unknownCount == slow.tags.unknownCount)
        for key in TwitchTagKey.allCases { precondition(fast.tags[key] == slow.tags[key], "slot \(key) apart") }
    default: preconditionFailure("one pass and two passes disagree on whether the line parses")
    }
    // The parse that splits every tag in its own pass: the same line or error, and the cursor's tags.
    var split: [Tag] = []
    var splitPass: Result<ParsedLine, LineError>
    do throws(LineError) { splitPass = .success(try ParsedLine.parse(bytes) { split.append($0) }) } catch {
        splitPass = .failure(error)
    }
    precondition(splitPass == twoPass, "the splitting parse and the plain parse apart")
    if case .success(let line) = twoPass {
        var cursor = line.tags
        var walked: [Tag] = []
        while let tag = cursor.next(in: bytes) { walked.append(tag) }
        precondition(split == walked, "the splitting parse and the tag cursor find different tags")
    }
}

private func exercise(_ bytes: Span<UInt8>) {
    agree(bytes)
    guard let parsed = try? ParsedLine.parse(bytes) else { return }
    precondition(Int(parsed.length) == bytes.count)
    var sink: UInt32 = 0
    var params = ParamCursor(parsed)
    var count = 0
    while let p = params.next(in: bytes) {
        precondition(p.upper <= parsed.length)
        count += 1
    }
    precondition(count == Int(parsed.paramCount))
    var tags = parsed.tags
    while let tag = tags.next(in: bytes) {
        tag.value.unescape(in: bytes) { sink &+= UInt32($0) }
    }
    _ = parsed.sourceParts(in: bytes)
    let message = TwitchMessage(parsed, in: bytes)
    var badges = message.badges
    while let b = badges.next(in: bytes) { sink &+= UInt32(b.version.count) }
    if let text = message.privmsg(in: bytes)?.text {
        let codePoints = CodePoints.count(in: bytes, text)
        var emotes = message.emotes
        while let emote = emotes.next(in: bytes) {
            if let r = emote.clamped(toCodePointCount: codePoints) {
                precondition(r.upperBound <= codePoints)
                let lo = CodePoints.byteOffset(ofCodePoint: r.lowerBound, in: bytes, text)
                precondition(lo >= Int(text.lower) && lo <= Int(text.upper))
            }
        }
    }
    _ = message.userNotice(in: bytes)
    _ = message.clearChat(in: bytes)
    _ = message.clearMsg(in: bytes)
    _ = message.roomState(in: bytes)
    _ = message.userState(in: bytes)
    _ = message.notice(in: bytes)
    _ = message.whisper(in: bytes)
    _ = message.membership(in: bytes)
    _ = message.hostTarget(in: bytes)
    _ = message.capReply(in: bytes)
    _ = message.pingToken(in: bytes)
    _ = message.sharedChatSource(in: bytes)
    _ = message.replyParent
    message.tags.forEachUnknown(in: bytes) { sink &+= UInt32($0.key.count) }
    if sink == 0xDEAD_BEEF { print("") }  // keep the work observable
}
