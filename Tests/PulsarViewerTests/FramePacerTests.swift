import PulsarEngine
import PulsarViewer
import Testing

@Suite struct FramePacerTests {
    static func ms(_ v: Double) -> MonotonicTime { MonotonicTime(nanoseconds: Int64((v * 1e6).rounded())) }

    @Test("A frame presented within its slot misses nothing; a late one skips the slots whose deadlines passed")
    func missedFrames() {
        var pacer = FramePacer(refreshHz: 60, start: Self.ms(0))
        #expect(pacer.presented(drawStart: Self.ms(0), at: Self.ms(5)) == Self.ms(1000.0 / 60))
        #expect(pacer.missed == 0 && pacer.slot == 1)
        // Slot 1 (16.7 ms) presented at 40 ms: the deadline of slot 2 (33.3 ms) passed → missed.
        pacer.woke(at: Self.ms(17))
        let next = pacer.presented(drawStart: Self.ms(17), at: Self.ms(40))
        #expect(pacer.slot == 3 && pacer.missed == 1 && next == Self.ms(50))
        // Exactly on a deadline: that slot is still to come.
        pacer.presented(drawStart: Self.ms(50), at: Self.ms(200.0 / 3))
        #expect(pacer.slot == 4 && pacer.missed == 1)
        let stats = pacer.stats
        #expect(stats.presented == 3 && stats.slots == 4 && stats.missed == 1)
        #expect(stats.drawMs.max == 23 && stats.wakeLateMs.max > 0.3 && stats.wakeLateMs.max < 0.34)
        #expect(stats.json.contains("\"missed\":1") && stats.json.contains("\"slots\":4"))
    }

    @Test("A run closed at a time limit counts the slots before it: a late last frame does not add the slots past the limit")
    func closedAtTheLimit() {
        var pacer = FramePacer(refreshHz: 60, start: Self.ms(0))
        for k in 0..<59 { pacer.presented(drawStart: Self.ms(Double(k) * 1000 / 60), at: Self.ms(Double(k) * 1000 / 60 + 1)) }
        // Slot 59 (983 ms) comes back at 1 020 ms: slots 60 and 61 (1 000, 1 016.7 ms) passed.
        pacer.presented(drawStart: Self.ms(984), at: Self.ms(1020))
        #expect(pacer.slot == 62 && pacer.missed == 2)
        pacer.close(beforeSlot: 60)
        #expect(pacer.stats.slots == 60 && pacer.stats.presented == 60 && pacer.stats.missed == 0)
    }

    @Test("Percentiles are nearest-rank")
    func percentiles() {
        let p = Percentiles((1...100).map(Double.init).reversed())
        #expect(p.p50 == 50 && p.p99 == 99 && p.max == 100)
        #expect(Percentiles([]) == Percentiles([0]))
    }
}
