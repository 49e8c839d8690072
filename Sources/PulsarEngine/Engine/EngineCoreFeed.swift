import PulsarAudio
import PulsarCore
import Synchronization

// Feeding the device (the real-time thread): one device, or two through the stream ring; the
// events it reports, and its recovery from an underrun.
extension EngineCore {
    /// Writes what the device can take, at most one buffer's worth: a device that consumes
    /// faster than this thread renders (a slow build, a starved machine) must not keep the step
    /// from returning to its commands and to `shutdown`.
    func fill() throws(DeviceError) {
        if let feed, let ring { return try fillBoth(feed, ring) }
        let channels = configuration.channels
        var budget = fillsWhatTheDeviceAsks ? Int.max : configuration.bufferFrames
        while budget > 0 {
            let available: Int
            do {
                available = try device.availableFrames()
            } catch .underrun {
                try recoverUnderrun()
                budget -= configuration.periodFrames
                continue
            }
            let n = min(available, configuration.periodFrames, budget)
            guard n > 0 else { return }
            budget -= n
            let block = UnsafeMutableBufferPointer(rebasing: buffer[0..<(n * channels)])
            render(block, frames: n)
            let written: Int
            do {
                written = try device.write(UnsafeBufferPointer(block))
            } catch .underrun {
                try recoverUnderrun()
                continue
            }
            streamWritten += FrameIndex(written)
            if firstWriteTime == nil, written > 0 { firstWriteTime = clock.now() }
            if written < n { return }
        }
    }

    /// Two devices: renders the stream into the ring as far as either device's next period
    /// needs (never so far that it would overwrite what either still reads), then gives each its
    /// frames — at most a buffer's worth of periods in one step.
    func fillBoth(_ feed: HapticDeviceFeed, _ ring: StreamRing) throws(DeviceError) {
        let period = configuration.periodFrames
        for _ in 0...(configuration.bufferFrames / period) {
            let a = min(try mainRoom(), period)
            let b = min(try hapticRoom(feed), feed.configuration.periodFrames)
            guard a > 0 || b > 0 else { return }
            if b > 0, let segment = feed.update() { report(.hapticDeviceSegment(segment)) }
            var need = mainWrittenBoth + FrameIndex(a)
            if b > 0 { need = max(need, feed.streamNeeded(for: b)) }
            let kept = b > 0 ? min(mainWrittenBoth, max(feed.streamLowest, ring.oldest)) : mainWrittenBoth
            need = min(need, kept + FrameIndex(ring.capacity - period))
            while streamWritten < need {
                let n = Int(min(need - streamWritten, FrameIndex(period)))
                let block = UnsafeMutableBufferPointer(rebasing: buffer[0..<(n * configuration.channels)])
                render(block, frames: n)
                ring.append(block)
                streamWritten += FrameIndex(n)
            }
            var full = true
            let n = min(a, Int(streamWritten - mainWrittenBoth))
            if n > 0 {
                ring.copy(from: mainWrittenBoth, frames: n, channels: mainChannels, into: mainBuffer.baseAddress!)
                var written = 0
                do {
                    written = try device.write(UnsafeBufferPointer(rebasing: mainBuffer[0..<(n * mainChannels)]))
                } catch .underrun {
                    try recoverUnderrun()
                }
                mainWrittenBoth += FrameIndex(written)
                if firstWriteTime == nil, written > 0 { firstWriteTime = clock.now() }
                full = written == n
            }
            if b > 0 {
                do throws(DeviceError) {
                    full = try feed.write(b, from: ring) == b && full
                } catch .underrun {
                    try recoverHapticDevice(feed)
                } catch {
                    throw Self.onHapticDevice(error)
                }
            }
            if !full { return }
        }
    }

    /// Frames the main device takes now (0 after an underrun it recovered from).
    func mainRoom() throws(DeviceError) -> Int {
        do {
            return try device.availableFrames()
        } catch .underrun {
            try recoverUnderrun()
            return 0
        }
    }

    /// Frames the haptic device takes now (0 after an underrun it recovered from).
    func hapticRoom(_ feed: HapticDeviceFeed) throws(DeviceError) -> Int {
        do throws(DeviceError) {
            return try feed.device.availableFrames()
        } catch .underrun {
            try recoverHapticDevice(feed)
            return 0
        } catch {
            throw Self.onHapticDevice(error)
        }
    }

    /// After the haptic device's underrun: what it had queued is lost; it restarts where it was
    /// written to, and its clock starts over (the feed jumps back onto the main clock).
    func recoverHapticDevice(_ feed: HapticDeviceFeed) throws(DeviceError) {
        let lost: Range<HapticDeviceFrame>
        do throws(DeviceError) { lost = try feed.recover() } catch { throw Self.onHapticDevice(error) }
        report(.hapticDeviceUnderrun(lostFrom: lost.lowerBound, lostTo: lost.upperBound, time: clock.now()))
    }

    /// The mix of every attached voice for stream frames `streamWritten ..< + frames`.
    func render(_ block: UnsafeMutableBufferPointer<Float>, frames: Int) {
        mix.begin(block, from: streamWritten)
        for i in 0..<attachedCount {
            let slot = attached[i]
            let voice = slots[slot]!
            voice.mixed = true
            // Preloaded audio only copies; should a read fail all the same, the voice is silent
            // for the block and says so.
            do {
                if let realtime = voice.realtime {
                    mix.add(voice.state, realtime: realtime, of: voice.renderer, intensity: voice.intensity, master: master, to: block)
                } else {
                    try mix.add(voice.state, of: voice.renderer, intensity: voice.intensity, master: master, sharpness: voice.sharpness,
                                oscillator: voice.oscillator, to: block)
                }
            } catch {
                report(.renderFailed(voice: slot, from: streamWritten, to: streamWritten + FrameIndex(frames)))
            }
        }
        mix.finish(block)
    }

    /// Queues `event` for the control thread; when the queue is full, counts it instead, and
    /// reports the count before the next event that fits. Real-time thread.
    func report(_ event: EngineEvent) {
        if unreportedLosses > 0 {
            guard events.push(.eventsLost(count: unreportedLosses)) else {
                lost(event)
                return
            }
            unreportedLosses = 0
        }
        if !events.push(event) { lost(event) }
    }

    func lost(_ event: EngineEvent) {
        unreportedLosses += 1
        if case .command = event { lostCommandReports.add(1, ordering: .releasing) }
    }

    /// After an underrun: what was queued is lost; the device restarts at stream frame `streamWritten`.
    func recoverUnderrun() throws(DeviceError) {
        unreportedStall = false
        let played = streamFrame(of: try device.position())
        report(.underrun(lostFrom: min(played, mainWritten), lostTo: mainWritten, time: clock.now()))
        try device.prepare()
        deviceBase = mainWritten
        feed?.steering.main.reset()
        feed?.mainRestarted()
    }
}
