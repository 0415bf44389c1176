import ChatPosix
import ChatTestSupport
import Foundation
import Synchronization
import Testing

/// A folder replaced in one step: the new one at the path, the old one left where the new was, and a
/// reader looking all the while never finding neither.
@Suite struct PathExchangeTests {
    @Test("a missing path: the new folder is renamed in and nothing is left behind")
    func missing() throws {
        let directory = try InputTempDirectory()
        try directory.write("new/a", Array("new".utf8))
        #expect(PathExchange.replace(directory.path + "/index", with: directory.path + "/new"))
        #expect(try FileBytes.read(directory.path + "/index/a") == Array("new".utf8))
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/new"))
    }

    @Test("an existing folder: swapped, the old one left at the new one's name")
    func swapped() throws {
        let directory = try InputTempDirectory()
        try directory.write("index/a", Array("old".utf8))
        try directory.write("new/a", Array("new".utf8))
        #expect(PathExchange.replace(directory.path + "/index", with: directory.path + "/new"))
        #expect(try FileBytes.read(directory.path + "/index/a") == Array("new".utf8))
        #expect(try FileBytes.read(directory.path + "/new/a") == Array("old".utf8))
    }

    @Test("a reader opening the path while it is replaced 2,000 times always finds a folder")
    func neverNone() throws {
        let directory = try InputTempDirectory()
        let path = directory.path + "/index"
        try directory.write("index/a", Array("0".utf8))
        let done = Atomic<Bool>(false)
        let misses = Atomic<Int>(0)
        let reads = Atomic<Int>(0)
        let reader = Thread {
            while !done.load(ordering: .acquiring) {
                if FileManager.default.contents(atPath: path + "/a") == nil {
                    misses.add(1, ordering: .relaxed)
                }
                reads.add(1, ordering: .relaxed)
            }
        }
        reader.start()
        for i in 1...2_000 {
            let new = directory.path + "/new"
            try directory.write("new/a", Array(String(i).utf8))
            #expect(PathExchange.replace(path, with: new))
            try FileManager.default.removeItem(atPath: new)
        }
        done.store(true, ordering: .releasing)
        while !reader.isFinished { usleep(1000) }
        #expect(
            misses.load(ordering: .relaxed) == 0,
            "\(misses.load(ordering: .relaxed)) of \(reads.load(ordering: .relaxed)) reads found none")
        #expect(try FileBytes.read(path + "/a") == Array("2000".utf8))
    }
}
