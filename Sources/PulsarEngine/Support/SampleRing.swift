import Synchronization

/// A bounded lock-free ring of samples for one producer thread and one consumer thread, moved in
/// runs: how a real-time thread hands a recording to a writer thread. Storage allocated and
/// touched once; neither side waits or allocates. What does not fit is refused, not waited for.
///
/// Thread rules: `write` from one producer thread, `read` from one consumer thread.
package final class SampleRing: @unchecked Sendable {
    package let capacity: Int
    private let mask: Int
    private let storage: UnsafeMutableBufferPointer<Float>
    private let head = Atomic<Int>(0)  // next sample to read: the consumer's
    private let tail = Atomic<Int>(0)  // next sample to write: the producer's

    /// A ring of at least `minimumCapacity` samples (rounded up to a power of two).
    package init(minimumCapacity: Int) {
        var c = 1
        while c < max(minimumCapacity, 1) { c <<= 1 }
        capacity = c
        mask = c - 1
        storage = .allocate(capacity: c)
        storage.initialize(repeating: 0)
    }

    deinit { storage.deallocate() }

    /// Appends all of `samples`, or nothing when they do not fit; returns whether they went in.
    package func write(_ samples: UnsafeBufferPointer<Float>) -> Bool {
        let t = tail.load(ordering: .relaxed)
        let h = head.load(ordering: .acquiring)
        guard capacity - (t - h) >= samples.count else { return false }
        for i in 0..<samples.count { storage[(t + i) & mask] = samples[i] }
        tail.store(t + samples.count, ordering: .releasing)
        return true
    }

    /// Moves up to `into.count` samples into `into`; returns how many.
    package func read(into: UnsafeMutableBufferPointer<Float>) -> Int {
        let h = head.load(ordering: .relaxed)
        let t = tail.load(ordering: .acquiring)
        let n = min(t - h, into.count)
        for i in 0..<n { into[i] = storage[(h + i) & mask] }
        head.store(h + n, ordering: .releasing)
        return n
    }
}
