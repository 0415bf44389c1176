/// What an ``HTTPListener`` has done with the connections it was offered: how many it holds now,
/// how many it served, and how many it closed unserved because a limit was reached (shed) or could
/// not accept because the process ran out of descriptors.
///
/// A copy, read from counters libmicrohttpd's thread keeps (``HTTPListener/figures``).
public struct HTTPListenerFigures: Sendable, Equatable {
    /// Connections open at once at most (``HTTPLimits/connections``), and from one address.
    public var limit: Int
    public var limitPerAddress: Int
    /// Connections open now.
    public var open: Int
    /// Connections accepted and served (open now or since closed).
    public var accepted: UInt64
    /// Connections closed at once, unserved, because ``limit`` were open.
    public var shedOverLimit: UInt64
    /// Connections closed at once, unserved, because ``limitPerAddress`` were open from their address.
    public var shedOverAddressLimit: UInt64
    /// Accepts that failed because the process or the system ran out of descriptors (`EMFILE`,
    /// `ENFILE`): the connection waits in the kernel's backlog until one is free.
    public var acceptFailures: UInt64
    /// Connections answered busy at once (``HTTPLimits/busyConnections``), counted in ``accepted`` too.
    public var answeredBusy: UInt64
    /// Connections closed because they had not sent a whole request in ``HTTPLimits/requestTimeoutSeconds``.
    public var cutSlow: UInt64

    public init(
        limit: Int, limitPerAddress: Int, open: Int = 0, accepted: UInt64 = 0, shedOverLimit: UInt64 = 0,
        shedOverAddressLimit: UInt64 = 0, acceptFailures: UInt64 = 0, answeredBusy: UInt64 = 0, cutSlow: UInt64 = 0
    ) {
        self.limit = limit
        self.limitPerAddress = limitPerAddress
        self.open = open
        self.accepted = accepted
        self.shedOverLimit = shedOverLimit
        self.shedOverAddressLimit = shedOverAddressLimit
        self.acceptFailures = acceptFailures
        self.answeredBusy = answeredBusy
        self.cutSlow = cutSlow
    }

    /// Connections closed unserved, over either limit.
    public var shed: UInt64 { shedOverLimit &+ shedOverAddressLimit }

    /// One line for the end of a run: `1,024 served, 4,488 connections shed (4,488 over the limit of
    /// 512 open at once, 0 over 256 from one address), 0 accepts failed for want of descriptors`.
    public var summary: String {
        "\(Self.grouped(accepted)) served, \(Self.grouped(shed)) connections shed "
            + "(\(Self.grouped(shedOverLimit)) over the limit of \(limit) open at once, "
            + "\(Self.grouped(shedOverAddressLimit)) over \(limitPerAddress) from one address), "
            + "\(Self.grouped(acceptFailures)) accepts failed for want of descriptors"
    }

    /// `4488` as `4,488`.
    static func grouped(_ value: UInt64) -> String {
        let digits = Array(String(value))
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return text
    }
}
