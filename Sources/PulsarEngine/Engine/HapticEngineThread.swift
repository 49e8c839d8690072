import CWakeup
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

// The engine's real-time thread: what it shares with the control thread, its loop, its scheduling.
extension HapticEngine {
    /// What the two threads share across runs: the wake-up the real-time thread sleeps on, and
    /// the error written once before `failed` is set.
    final class Flags: @unchecked Sendable {
        let wakeup = pulsar_wakeup_create()!
        deinit { pulsar_wakeup_destroy(wakeup) }
        let failed = Atomic<Bool>(false)
        let scheduling = Atomic<SchedulingState>(.notAsked)
        var error: DeviceError?
        /// Taken by the first thread to fail, which alone writes `error` (with a callback device,
        /// the device's thread and the engine's may both see a failure).
        private let failing = Atomic<Bool>(false)

        /// Records `error` and sets `failed`, once.
        func fail(_ error: DeviceError) {
            guard !failing.exchange(true, ordering: .acquiringAndReleasing) else { return }
            self.error = error
            failed.store(true, ordering: .releasing)
        }
        /// True from a ring until the real-time thread's next step begins: commands queued in
        /// between need no ring of their own, since that step takes them in (a burst of
        /// thousands of commands rings once, not once each, and does not wake the thread for each).
        let rung = Atomic<Bool>(false)

        /// Wakes the real-time thread unless a ring is pending. Called after a command is queued.
        func ring() {
            // Acquiring-and-releasing: the step that clears the flag sees every command queued
            // before this exchange.
            if !rung.exchange(true, ordering: .acquiringAndReleasing) { pulsar_wakeup_ring(wakeup) }
        }

        /// The real-time thread, before it takes in commands: later ones ring again.
        func stepBegins() { _ = rung.exchange(false, ordering: .acquiringAndReleasing) }
    }

    /// One start of the real-time thread: its own `running` flag, so a thread of an earlier run
    /// can never be revived by a later `start()`.
    final class Run: @unchecked Sendable {
        let running = Atomic<Bool>(true)
        var thread: JoinableThread?
    }

    /// What wakes the real-time thread between steps.
    public enum WakeSource: Sendable {
        /// The device's poll descriptors (ALSA's), when it has them: the thread sleeps until the
        /// device wants a period or a command arrives. A device without them falls back to `timer`.
        case device
        /// A timer once a period, or a command.
        case timer
        /// The device's own real-time thread runs each step (`CallbackDevice`: PipeWire's
        /// process callback) and the engine's thread only watches the device for a failure. A
        /// device without callbacks, or two devices, fall back to `timer`.
        case callback
    }

    /// What became of the request for SCHED_FIFO.
    enum SchedulingState: UInt8, AtomicRepresentable {
        case notAsked, granted, refused
    }

    /// The real-time thread's body: a step, then a wait for the next.
    static func realtimeLoop(core: EngineCore, run: Run, flags: Flags, monotonic: MonotonicClock, wake: WakeSource) {
        if wake == .callback, core.feed == nil, let device = core.device as? CallbackDevice {
            return callbackLoop(core: core, device: device, run: run, flags: flags, monotonic: monotonic)
        }
        let periodNs = Int64(Double(core.configuration.periodFrames) / Double(core.configuration.sampleRate.hertz) * 1e9)
        let descriptors = wake == .device ? core.device.pollDescriptors : UnsafeMutableBufferPointer(start: nil, count: 0)
        while run.running.load(ordering: .acquiring) {
            guard step(core, run: run, flags: flags) else { return }
            let now = monotonic.now().nanoseconds
            guard descriptors.count > 0 else {
                // Once a period to top up the device, or at once when a command arrives.
                _ = pulsar_wakeup_sleep_until(flags.wakeup, now + periodNs)
                continue
            }
            // When the device wants a period, or a command arrives; two periods at most, should
            // the descriptors stay silent.
            let woke = pulsar_wakeup_wait(flags.wakeup, descriptors.baseAddress, Int32(descriptors.count), now + 2 * periodNs)
            // Asking the device what its descriptors mean also clears a plugin's wake event
            // (PipeWire's is an eventfd), so the next wait blocks until the next period.
            if woke & Int32(PULSAR_WAKE_DEVICE) != 0, !core.device.wantsData(), woke & Int32(PULSAR_WAKE_RUNG) == 0 {
                // The descriptors fired for nothing the device wants: no spinning on them.
                _ = pulsar_wakeup_sleep_until(flags.wakeup, now + periodNs / 2)
            }
        }
    }

    /// With a callback device: the device's thread steps the core each cycle (the whole step,
    /// commands included: a command is taken in at the next cycle), while this thread watches
    /// for the failure that ends the callbacks (a server gone) every few periods, or at once
    /// when rung. Steps end before this returns.
    static func callbackLoop(core: EngineCore, device: CallbackDevice, run: Run, flags: Flags, monotonic: MonotonicClock) {
        core.fillsWhatTheDeviceAsks = true
        device.startCallbacks {
            guard run.running.load(ordering: .acquiring) else { return }
            _ = step(core, run: run, flags: flags)
        }
        let watchNs = max(Int64(Double(core.configuration.bufferFrames) / Double(core.configuration.sampleRate.hertz) * 1e9), 5_000_000)
        while run.running.load(ordering: .acquiring) {
            _ = pulsar_wakeup_sleep_until(flags.wakeup, monotonic.now().nanoseconds + watchNs)
            do throws(DeviceError) {
                try device.checkAlive()
            } catch {
                stop(run, flags, error)
            }
        }
        device.stopCallbacks()
        core.fillsWhatTheDeviceAsks = false
    }

    /// One step of the core; false (the failure recorded, the run stopped) when the device failed.
    private static func step(_ core: EngineCore, run: Run, flags: Flags) -> Bool {
        flags.stepBegins()
        do throws(DeviceError) {
            try core.step()
            return true
        } catch {
            stop(run, flags, error)
            return false
        }
    }

    /// Records `error` as the run's failure and stops the run.
    private static func stop(_ run: Run, _ flags: Flags, _ error: DeviceError) {
        flags.fail(error)
        run.running.store(false, ordering: .releasing)
    }

    /// Priority of the real-time thread under SCHED_FIFO: above ordinary threads, below the
    /// sound server's own data thread (PipeWire's runs at 88) and the kernel's IRQ threads (50
    /// is their default, so stay above them only where an ALSA driver needs it: not here).
    public static let realtimePriority: Int32 = 40

    /// Asks for SCHED_FIFO for the calling thread; false when refused (no CAP_SYS_NICE or rtprio limit).
    static func requestRealtimeScheduling() -> Bool {
        var param = sched_param()
        param.sched_priority = realtimePriority
        return pthread_setschedparam(pthread_self(), SCHED_FIFO, &param) == 0
    }
}
