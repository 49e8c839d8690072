import Foundation
@testable import PulsarALSA
import Synchronization
import Testing

/// ALSA's messages reach the log without a lock, from any thread at once, and a reader gets
/// only whole entries: each text matches the line number it was recorded with.
@Suite struct ALSAErrorLogTests {
    @Test("Four threads record 20 000 messages while another drains: every drained entry is whole, in order, and none is counted twice",
          .timeLimit(.minutes(1)))
    func concurrentRecordsStayWhole() throws {
        let log = ALSAErrorLog.shared
        _ = log.drain()
        let start = log.recordedCount
        let perThread = 5_000
        let done = Atomic<Int>(0)
        let writers: [Thread] = (0..<4).map { (writer: Int) -> Thread in
            Thread {
                for k in 0..<perThread {
                    let line = Int32(writer * perThread + k)
                    "message \(line) from writer \(writer)".withCString { message in
                        "pcm.c".withCString { file in
                            "snd_pcm_test".withCString { function in
                                log.record(file: file, line: line, function: function, errorCode: 0, message: message)
                            }
                        }
                    }
                }
                done.add(1, ordering: .releasing)
            }
        }
        writers.forEach { $0.start() }
        var drained: [ALSAErrorLog.Entry] = []
        while done.load(ordering: .acquiring) < writers.count {
            drained += log.drain()
        }
        drained += log.drain()
        #expect(log.recordedCount - start == UInt64(4 * perThread))
        #expect(!drained.isEmpty)
        for entry in drained {
            let writer = entry.line / perThread
            #expect(entry.message == "message \(entry.line) from writer \(writer)", "a torn entry: \(entry)")
            #expect(entry.file == "pcm.c" && entry.function == "snd_pcm_test")
        }
        let sequences = drained.map(\.sequence)
        #expect(zip(sequences, sequences.dropFirst()).allSatisfy { $0 < $1 }, "oldest first, each once")
    }
}
