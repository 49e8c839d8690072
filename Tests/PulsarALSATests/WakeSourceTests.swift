import Foundation
import PulsarALSA
import PulsarCore
import PulsarEngine
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The real-time thread sleeping on ALSA's poll descriptors instead of a timer: the PCM has
/// descriptors, the player keeps the device fed and takes commands. Part of the serialized ALSA suite.
extension ALSADeviceTests {
    @Test func pollDescriptorWakeKeepsTheDeviceFed() throws {
        let server = try PipeWireServer.shared()
        server.exportEnvironment()
        let device = ALSADevice(name: "pipewire")
        let player = try HapticPlayer(mixer: try Self.steadyMixer(seconds: 30), device: device, periodFrames: 256,
                                      bufferFrames: 1024, wake: .device)
        #expect(device.pollDescriptors.count > 0, "PipeWire's ALSA plugin gives the PCM poll descriptors")
        player.start()
        player.play()
        defer { player.shutdown() }
        // About two seconds of device time, read on the device's own clock.
        var heard: Double?
        while (heard ?? 0) < 96_000, player.failure == nil {
            usleep(20_000)
            player.poll()
            heard = player.streamFrame(at: player.now())
        }
        #expect(player.send(.seek(toTimelineFrame: 48_000)))
        var seeks = 0
        while seeks == 0, player.failure == nil {
            usleep(10_000)
            player.poll()
            seeks = player.loggedEvents.filter { if case .command(.seek, _, _, _, _) = $0 { return true } else { return false } }.count
        }
        #expect(player.failure == nil)
        #expect(player.streamWritten >= 96_000, "the thread kept writing while it slept on the descriptors")
        #expect(seeks == 1)
    }
}
