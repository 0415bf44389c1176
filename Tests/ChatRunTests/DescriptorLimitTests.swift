import ChatRun
import Testing

@Suite struct DescriptorLimitTests {
    @Test("raising the descriptor limit answers the soft limit in force, within what a run asks for, and stays")
    func raise() throws {
        let first = try #require(DescriptorLimit.raise())
        #expect(first > 0 && first <= DescriptorLimit.wanted)
        #expect(DescriptorLimit.raise() == first)
    }
}
