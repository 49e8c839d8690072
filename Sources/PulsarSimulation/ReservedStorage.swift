#if canImport(Glibc)
import Glibc
#endif

/// Storage for up to `capacity` elements that costs memory only as it fills: the whole span is
/// reserved as address space at once (an anonymous `MAP_NORESERVE` mapping), and the kernel
/// backs each page with memory when an append first touches it. Appending never allocates or
/// moves what is stored, so a real-time thread may append; a reservation of hours at 192 kHz
/// on 64 channels asks for address space, not memory. Past `capacity` an append is dropped and
/// counted (`dropped`), never grown.
///
/// Thread rules: one thread appends; any thread may read once that thread has stopped.
final class ReservedStorage<Element> {
    let capacity: Int
    private(set) var count = 0
    /// Appends refused because the storage was full.
    private(set) var dropped = 0
    private let base: UnsafeMutablePointer<Element>?
    private let bytes: Int

    /// Reserves room for `capacity` elements; nil when the address space cannot be had.
    init?(capacity: Int) {
        let stride = MemoryLayout<Element>.stride
        guard capacity >= 0, capacity <= Int.max / max(stride, 1) / 2 else { return nil }
        self.capacity = capacity
        guard capacity > 0 else {
            (base, bytes) = (nil, 0)
            return
        }
        let page = max(Int(sysconf(Int32(_SC_PAGESIZE))), 4096)
        let size = (capacity * stride + page - 1) / page * page
        let mapped = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
        guard let mapped, mapped != MAP_FAILED else { return nil }
        (base, bytes) = (mapped.bindMemory(to: Element.self, capacity: capacity), size)
    }

    deinit {
        guard let base else { return }
        base.deinitialize(count: count)
        munmap(UnsafeMutableRawPointer(base), bytes)
    }

    /// Stores `element` after the others, or counts it dropped when full. Real-time safe.
    @inline(__always)
    func append(_ element: Element) {
        guard count < capacity, let base else {
            dropped += 1
            return
        }
        (base + count).initialize(to: element)
        count += 1
    }

    /// What is stored, copied out.
    var elements: [Element] {
        guard let base, count > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: base, count: count))
    }
}
