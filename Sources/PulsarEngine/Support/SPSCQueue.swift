#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A bounded lock-free queue for exactly one producer thread and one consumer thread: how
/// commands reach the real-time thread and how its reports come back. Index logic on two atomic
/// counters (acquire/release), storage allocated once; neither side ever waits or allocates.
///
/// Thread rules: `push` from one producer thread only, `pop` from one consumer thread only; both
/// are real-time safe (for elements without reference-counted parts, not even a retain).
@_spi(Internals) public final class SPSCQueue<Element>: @unchecked Sendable {
    package let capacity: Int
    private let mask: Int
    private let storage: UnsafeMutablePointer<Element>
    /// Next slot to read; written by the consumer only.
    private let head = Atomic<Int>(0)
    /// Next slot to write; written by the producer only.
    private let tail = Atomic<Int>(0)

    /// A queue holding at least `minimumCapacity` elements (rounded up to a power of two).
    package init(minimumCapacity: Int) {
        var c = 1
        while c < max(minimumCapacity, 1) { c <<= 1 }
        capacity = c
        mask = c - 1
        storage = .allocate(capacity: c)
        // Touch every page now, on the thread that builds the queue: otherwise the real-time
        // side takes a page fault at each new page of its first pass through the ring (minutes
        // of faults for a large event queue), and resident memory creeps up meanwhile.
        memset(storage, 0, c * MemoryLayout<Element>.stride)
    }

    deinit {
        var h = head.load(ordering: .relaxed)
        let t = tail.load(ordering: .relaxed)
        while h != t {
            (storage + (h & mask)).deinitialize(count: 1)
            h += 1
        }
        storage.deallocate()
    }

    /// Appends `element`; false (and nothing stored) when the queue is full. Producer only.
    @discardableResult
    package func push(_ element: Element) -> Bool {
        let t = tail.load(ordering: .relaxed)
        let h = head.load(ordering: .acquiring)
        guard t - h < capacity else { return false }
        (storage + (t & mask)).initialize(to: element)
        tail.store(t + 1, ordering: .releasing)
        return true
    }

    /// Removes and returns the oldest element, or nil when empty. Consumer only.
    public func pop() -> Element? {
        let h = head.load(ordering: .relaxed)
        let t = tail.load(ordering: .acquiring)
        guard h != t else { return nil }
        let element = (storage + (h & mask)).move()
        head.store(h + 1, ordering: .releasing)
        return element
    }

    /// Elements queued at the moment of the call (exact only from the producer or the consumer).
    package var count: Int {
        tail.load(ordering: .acquiring) - head.load(ordering: .acquiring)
    }
}
