import ChatInput
import ChatPosix
import ChatTestSupport
import Foundation
import Testing

@Suite(.timeLimit(.minutes(20))) struct FileSourceTests {
    @Test("reads a file whole, whatever the read size", arguments: [1, 3, 4096, 1 << 16])
    func readsWhole(chunk: Int) throws {
        let dir = try InputTempDirectory()
        let content = sampleChatLines(300)
        let path = try dir.write("a.log", content)
        var source = try FileSource(path: path)
        #expect(source.name == path)
        let (bytes, error) = drainSource(&source, chunk: chunk)
        #expect(error == nil)
        #expect(bytes == content)
    }

    @Test("a missing file is notFound, naming the path")
    func missing() throws {
        let dir = try InputTempDirectory()
        let path = dir.path + "/nope.log"
        #expect(throws: InputError.notFound(path: path)) { try FileSource(path: path) }
        #expect(InputError.notFound(path: path).description == "\(path): no such file or directory")
    }

    @Test("a directory is not a source")
    func directory() throws {
        let dir = try InputTempDirectory()
        #expect(throws: InputError.isDirectory(path: dir.path)) { try FileSource(path: dir.path) }
    }

    @Test("an unreadable file is permissionDenied (as root too: in a child that becomes nobody)")
    func unreadable() async {
        await #expect(processExitsWith: .success) {
            try dropRootPrivileges()
            let dir = try InputTempDirectory()
            let path = try dir.write("secret.log", sampleChatLines(1))
            chmod(path, 0)
            #expect(throws: InputError.permissionDenied(path: path)) { try FileSource(path: path) }
        }
    }

    @Test("other open errors carry errno and its text")
    func errnoText() {
        let error = InputError.cannotOpen(path: "/x", errno: EIO)
        #expect(error.description == "/x: cannot open: Input/output error")
        #expect(InputError.readFailed(name: "/x", errno: EIO).description == "/x: read error: Input/output error")
    }

    @Test("- is standard input")
    func standardInput() throws {
        let source = try FileSource(path: "-")
        #expect(source.name == "(standard input)")
    }

    @Test("a pipe is read to its end; following does not poll a pipe")
    func pipeEnds() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let content = sampleChatLines(20)
        let written = content.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }
        #expect(written == content.count)
        close(fds[1])
        let stop = StopFlag()
        var source = FileSource(
            descriptor: fds[0], name: "pipe", closesDescriptor: true, follow: FollowMode(stop: stop))
        let (bytes, error) = drainSource(&source, chunk: 100)
        #expect(error == nil)
        #expect(bytes == content)
    }

    @Test("format detection keeps the bytes it looked at", arguments: [0, 1, 2, 3, 100])
    func detectionKeepsBytes(length: Int) throws {
        let dir = try InputTempDirectory()
        let content = [UInt8](sampleChatLines(5).prefix(length))
        let path = try dir.write("x.txt", content)
        var source = try FileSource(path: path)
        #expect(try source.detectFormat() == .plain)
        let (bytes, _) = drainSource(&source, chunk: 1)
        #expect(bytes == content)
    }

    @Test("gzip is told by its magic bytes, not its name")
    func detectsGzipByMagic() throws {
        let dir = try InputTempDirectory()
        let content = sampleChatLines(50)
        let plain = try dir.write("plain", content)
        #expect(
            try InputShell.run("gzip -c \(InputShell.quote(plain)) > \(InputShell.quote(dir.path + "/packed.log"))")
                .status == 0)
        let packed = FileSource(
            descriptor: open(dir.path + "/packed.log", O_RDONLY), name: "packed", closesDescriptor: true)
        #expect(try packed.detectFormat() == .gzip)

        var decoded = try makeByteSource(path: dir.path + "/packed.log")
        #expect(decoded is GzipSource)
        #expect(drainSource(&decoded).bytes == content)

        let misnamed = try dir.write("really-plain.gz", content)
        var asIs = try makeByteSource(path: misnamed)
        #expect(asIs is FileSource)
        #expect(drainSource(&asIs).bytes == content)
    }

    @Test("follow: new bytes appended to the file are read until the stop flag is raised")
    func followsGrowth() throws {
        let dir = try InputTempDirectory()
        let first = sampleChatLines(3)
        let path = try dir.write("live.log", first)
        let stop = StopFlag()
        // The deadline only keeps a broken test from hanging.
        var source = try FileSource(
            path: path,
            follow: FollowMode(pollInterval: .milliseconds(20), stop: stop, deadline: .now + .seconds(20)))
        let more = sampleChatLines(2, start: 1_800_000_000_000)
        // A thread of its own: the reader below blocks its thread while it polls.
        let writer = InputBackgroundThread {
            usleep(150_000)
            let handle = FileHandle(forWritingAtPath: path)!
            handle.seekToEndOfFile()
            handle.write(Data(more))
            handle.closeFile()
            usleep(150_000)
            stop.raise()
        }
        let clock = ContinuousClock()
        let started = clock.now
        let (bytes, error) = drainSource(&source, chunk: 4096)
        writer.join()
        #expect(error == nil)
        #expect(bytes == first + more)
        #expect(clock.now - started >= .milliseconds(250))
    }

    @Test("follow: a deadline ends following")
    func followDeadline() throws {
        let dir = try InputTempDirectory()
        let path = try dir.write("quiet.log", sampleChatLines(1))
        let clock = ContinuousClock()
        let started = clock.now
        var source = try FileSource(
            path: path, follow: FollowMode(pollInterval: .milliseconds(50), deadline: started + .milliseconds(200)))
        #expect(drainSource(&source).bytes == sampleChatLines(1))
        let waited = clock.now - started
        #expect(waited >= .milliseconds(200) && waited < .seconds(5))
    }

    @Test("follow: a file truncated in place is read again from its start")
    func followRestartsAfterTruncation() throws {
        let dir = try InputTempDirectory()
        let first = sampleChatLines(10)
        let path = try dir.write("rotated.log", first)
        let stop = StopFlag()
        let source = try FileSource(
            path: path,
            follow: FollowMode(pollInterval: .milliseconds(20), stop: stop, deadline: .now + .seconds(20)))
        let fresh = sampleChatLines(1, start: 1_900_000_000_000)
        let writer = InputBackgroundThread {
            usleep(100_000)
            let handle = FileHandle(forWritingAtPath: path)!
            handle.truncateFile(atOffset: 0)  // in place, as `copytruncate` does
            handle.write(Data(fresh))
            handle.closeFile()
            usleep(150_000)
            stop.raise()
        }
        var reading = source
        let (bytes, _) = drainSource(&reading, chunk: 4096)
        writer.join()
        #expect(bytes == first + fresh)
        #expect(source.restartCount == 1)
    }
}
