import ChatHTTP
import Testing

@Suite struct HTTPLimitsTests {
    @Test(
        "within a descriptor limit: a quarter of it at most, 512 at most, half of that from one address",
        arguments: [
            (20_000, 512, 256), (131_072, 512, 256), (2_048, 512, 256), (1_024, 256, 128), (256, 64, 32), (10, 2, 1),
            (3, 1, 1), (0, 1, 1),
        ])
    func withinDescriptorLimit(descriptors: Int, connections: Int, perAddress: Int) {
        let limits = HTTPLimits(descriptorLimit: descriptors)
        #expect(limits.connections == connections)
        #expect(limits.connectionsPerAddress == perAddress)
        // The rest as by default.
        #expect(limits.idleTimeoutSeconds == HTTPLimits().idleTimeoutSeconds)
        #expect(limits.memoryPerConnection == HTTPLimits().memoryPerConnection)
    }
}
