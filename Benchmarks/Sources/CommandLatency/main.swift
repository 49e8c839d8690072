// Command latency: how long after a request the listener hears its effect — the effective
// device frame minus the frame being heard when the command was sent — on the simulated device
// with and without working rewind, side by side. 256-frame periods, a 1024-frame buffer, the
// driving loop waking every half period; 1 000 commands each, arriving at random instants (the
// wait for the next wake-up is included, which HapticPlayer avoids by waking on each command).
//
//   swift run -c release command-latency
import Foundation
import PulsarAudio
import PulsarBundle
import PulsarCore
@_spi(Internals) import PulsarEngine
import PulsarSimulation

struct Xorshift {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    mutating func unit() -> Double {
        state ^= state << 13; state ^= state >> 7; state ^= state << 17
        return Double(state >> 11) / Double(UInt64(1) << 53)
    }
}

func measure(canRewind: Bool) throws -> [Double] {
    let pattern = PatternData(continuousPattern: ContinuousPattern(amplitude: [ValuePoint(time: 0, value: 0.5), ValuePoint(time: 5000, value: 0.5)]))
    var settings = MixSettings(layout: .haptic)
    settings.preloadAudio = true
    let mixer = try PresetMixer(preset: PresetHandle(id: "p", name: "p", duration: 0, pattern: pattern), settings: settings,
                                range: PlaybackRange(loopCount: 1000))
    let clock = ManualClock()
    var behaviour = SimulatedDevice.Behaviour()
    behaviour.canRewind = canRewind
    let device = SimulatedDevice(clock: clock, behaviour: behaviour)
    let core = try EngineCore(renderer: TransportRenderer(mixer: mixer), device: device, clock: clock,
                              configuration: DeviceConfiguration(sampleRate: SampleRate(48_000)!, channels: 1, periodFrames: 256, bufferFrames: 1024))
    core.send(.play(fromTimelineFrame: 0))
    var rng = Xorshift()
    var latencies: [Double] = []
    var heardAtRequest: FrameIndex?
    let commands: [TransportCommand] = [.pause, .resume, .seek(toTimelineFrame: 12_345), .play(fromTimelineFrame: 999)]
    var sent = 0
    while latencies.count < 1000 {
        // The real-time thread wakes every half period (128 frames); a command arrives at a random
        // instant in between and waits for the next wake-up.
        let wake = 128.0 / 48_000
        if heardAtRequest == nil, rng.unit() < 0.3 {
            let before = rng.unit() * wake
            clock.advance(seconds: wake - before)
            heardAtRequest = try device.position().framesPlayed
            core.send(EngineCommand(commands[sent % commands.count]))
            sent += 1
            clock.advance(seconds: before)
        } else {
            clock.advance(seconds: wake)
        }
        try core.step()
        while let e = core.events.pop() {
            if case let .command(_, _, _, effective, _) = e, let heard = heardAtRequest {
                latencies.append(Double(effective.index - heard) / 48)  // ms (no underrun here: the device counts stream frames)
                heardAtRequest = nil
            }
        }
    }
    return latencies.sorted()
}

func percentile(_ sorted: [Double], _ p: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
print("effective frame − frame heard at the request, 1 000 commands each (256-frame periods, 1024-frame buffer, 48 kHz):")
print("")
print("| device | p50 | p99 | max |")
print("| --- | ---: | ---: | ---: |")
for rewind in [true, false] {
    let l = try measure(canRewind: rewind)
    print("| simulated, \(rewind ? "rewinds (just past the heard position + one period)" : "no rewind (at the write head)") | \(String(format: "%.2f", percentile(l, 0.5))) ms | \(String(format: "%.2f", percentile(l, 0.99))) ms | \(String(format: "%.2f", l.last!)) ms |")
}
