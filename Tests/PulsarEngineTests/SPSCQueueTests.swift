import Foundation
@_spi(Internals) import PulsarEngine
import Testing

@Suite struct SPSCQueueTests {
    @Test("FIFO order, power-of-two capacity, refuses when full")
    func basics() {
        let q = SPSCQueue<Int>(minimumCapacity: 5)
        #expect(q.capacity == 8)
        #expect(q.pop() == nil)
        for i in 0..<8 { #expect(q.push(i)) }
        #expect(!q.push(99), "full")
        #expect(q.count == 8)
        for i in 0..<8 { #expect(q.pop() == i) }
        #expect(q.pop() == nil)
        // Wrap around many times.
        for round in 0..<1000 {
            #expect(q.push(round) && q.push(-round))
            #expect(q.pop() == round && q.pop() == -round)
        }
    }

    @Test("Elements left in the queue are released with it")
    func releasesLeftovers() {
        final class Token: @unchecked Sendable {
            nonisolated(unsafe) static var alive = 0
            init() { Token.alive += 1 }
            deinit { Token.alive -= 1 }
        }
        do {
            let q = SPSCQueue<Token>(minimumCapacity: 4)
            for _ in 0..<3 { q.push(Token()) }
            _ = q.pop()
            #expect(Token.alive == 2)
        }
        #expect(Token.alive == 0)
    }

    @Test("One producer and one consumer thread: every element arrives once, in order")
    func twoThreads() async {
        let q = SPSCQueue<Int>(minimumCapacity: 64)
        let total = 200_000
        let producer = Thread {
            var i = 0
            while i < total {
                if q.push(i) { i += 1 }
            }
        }
        producer.start()
        var expected = 0
        var outOfOrder = 0
        while expected < total {
            if let v = q.pop() {
                if v != expected { outOfOrder += 1 }
                expected += 1
            }
        }
        #expect(outOfOrder == 0)
        #expect(q.pop() == nil)
    }
}
