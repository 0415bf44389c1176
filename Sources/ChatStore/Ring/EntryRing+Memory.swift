import IRCWire

/// What a ring reserves and holds, for the store's memory accounting and its budget (owner's view).
extension EntryRing {
    // SAFETY (owner methods, as in EntryRing.swift): the storage and the table live from init to
    // deinit (a replaced generation is freed only by its replacer); slot indexes come from
    // `SlotTable.slot`, below the table's count.

    /// Bytes reserved for entry bytes right now.
    public var byteCapacity: Int { self.storage.capacity }
    /// Slots allocated right now (grows towards ``capacity`` while the ring fills).
    public var slotCapacity: Int { self.table.count }
    /// Bytes this ring reserves now: slot arrays, byte storage (with its descriptor) and reader pins.
    public var reservedBytes: Int {
        self.table.reservedBytes + byteCapacity + ByteStorage.headerBytes + pins.count * MemoryLayout<UInt64>.stride
    }
    /// Bytes of the live entries' lines (owner's view): what the ring holds, against what it reserves.
    ///
    /// - Complexity: O(live entries). - Allocations: none.
    public var heldBytes: Int {
        var total = 0
        var seq = head
        while seq < self.tail {
            total += Int(meta(seq)!.parsed.length)
            seq += 1
        }
        return total
    }
    /// Bytes of the pages the ring's lines are written in when they live in pages of their own (a
    /// region of the store's or a mapping, where only written pages cost memory), 0 on the heap: from
    /// the start of the region (its two descriptors) or mapping to the furthest byte written, rounded
    /// up to a page. A ring that has released bytes may have come round its storage: it counts all of
    /// it. What the store's memory report sets against the bytes these rings hold: the page each
    /// channel rounds up to.
    ///
    /// - Complexity: O(1). - Allocations: none.
    public var pagedBytes: Int {
        let storage = self.storage
        guard storage.reserved > 0 else { return 0 }
        let header = storage.isInRegion ? ByteStorage.regionHeaderBytes : 0
        let written =
            oldestByte == storage.origin
            ? min(storage.capacity, Int(writePosition &- storage.origin)) : storage.capacity
        return SlotTable.pageRounded(header + written)
    }
    /// Whether the byte storage is mapped (it has grown to ``mappedBytes``) and grows in place.
    public var byteStorageIsMapped: Bool { self.storage.reserved > 0 }
    /// Which columns of the slot table are mapped from ``pages`` (tests): 1 tombstones, 2 links and
    /// bucket heads, 4 senders, 8 metadata (``SlotTable/mappedBlockBytes`` or more each).
    package var slotTableMappedColumns: UInt8 { unsafe SlotTable.mappedColumns(tableAddress) }
    /// Where the byte storage starts: moves only when the storage does (tests).
    package var byteStorageAddress: UInt { unsafe UInt(bitPattern: self.storage.base) }
    /// Bytes of the slot table right now: metadata, tombstones, moderation's links and bucket heads,
    /// and the table's descriptor (``slotTableHeaderBytes``), all in one block.
    public var slotBytes: Int { self.table.reservedBytes }
    /// Bytes of a slot table's descriptor, at the start of its block.
    public static var slotTableHeaderBytes: Int { SlotTable.headerBytes }
    /// Bytes per slot for the sender tokens, in a ring that ``keepsSenders``.
    public static var senderBytesPerEntry: Int { MemoryLayout<SenderTokens>.stride }
    /// Fixed bytes per slot besides the line itself (metadata, moderation's id links and the atomic
    /// tombstone: 40 + 16 + 4), plus ``senderBytesPerEntry`` in a ring that ``keepsSenders``; the
    /// table adds moderation's bucket heads, 1 to 2 bytes a slot (``bucketHeadBytes(slots:)``), and
    /// its descriptor (``slotTableHeaderBytes``).
    public static var metadataBytesPerEntry: Int {
        MemoryLayout<EntryMeta>.stride + MemoryLayout<IdLinks>.stride + MemoryLayout<UInt32>.stride
    }
    /// Bytes of moderation's bucket heads in a slot table of `slots` slots.
    public static func bucketHeadBytes(slots: Int) -> Int { SlotTable.headBytes(slots) }

    /// The lowest sequence number a reader has pinned in this ring (`UInt64.max`: none). A reader
    /// may pin after this look: the budget trims below it and eviction still waits for pins.
    ///
    /// - Complexity: O(readers). - Allocations: none.
    var lowestPinned: UInt64 { pins.lowest }
}
