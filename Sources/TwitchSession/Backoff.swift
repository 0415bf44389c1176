/// The reconnect delay state: how many attempts in a row have failed, and the next delay.
struct Backoff: Sendable, Equatable {
    let policy: BackoffPolicy
    /// Consecutive reconnects since the last healthy connection.
    private(set) var attempt = 0

    init(policy: BackoffPolicy) {
        self.policy = policy
    }

    /// The delay before the next attempt; counts the attempt.
    ///
    /// - Complexity: O(1). - Allocations: none.
    mutating func nextDelay(using generator: inout some RandomNumberGenerator) -> Int64 {
        let ceiling = policy.ceiling(forAttempt: attempt)
        attempt += 1
        switch policy.jitter {
        case .none: return ceiling
        case .full: return Int64.random(in: 0...ceiling, using: &generator)
        case .equal: return ceiling / 2 + Int64.random(in: 0...(ceiling - ceiling / 2), using: &generator)
        }
    }

    /// After a healthy connection: the next delay starts from the base again.
    mutating func reset() {
        attempt = 0
    }
}

/// SplitMix64: a small, fast, seedable generator, so that a machine's nick and jitter are
/// reproducible from its seed.
struct SeededGenerator: RandomNumberGenerator, Sendable, Equatable {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
