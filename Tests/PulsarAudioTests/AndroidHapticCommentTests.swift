import Foundation
import PulsarBundle
import PulsarCore
import Testing
@testable import PulsarAudio

/// An `ANDROID_HAPTIC` comment that is not read as written says so in one warning: a value that
/// is not 1 or 2, one that leaves no channel of audio, a second comment.
@Suite struct AndroidHapticCommentTests {
    @Test("Each unusable value, and a second comment, is named with why it is not used", arguments: [
        (["ANDROID_HAPTIC=999"], 3, "is not 1 or 2"), (["ANDROID_HAPTIC=0"], 3, "is not 1 or 2"),
        (["ANDROID_HAPTIC=-1"], 3, "is not 1 or 2"), (["ANDROID_HAPTIC=x"], 3, "is not 1 or 2"),
        (["ANDROID_HAPTIC= 1"], 3, "is not 1 or 2"), (["android_haptic=2"], 2, "leaves no channel of audio"),
        (["ANDROID_HAPTIC=1", "ANDROID_HAPTIC=2"], 4, "2 ANDROID_HAPTIC comments: the first is read"),
    ])
    func warnings(comments: [String], channels: Int, says: String) {
        let why = OggVorbisComments.androidHapticWarning(channels: channels, comments: comments)
        #expect(why?.contains(says) == true, "\(comments): \(why ?? "nil")")
        #expect(OggVorbisComments.androidHapticChannels(channels: channels, comments: comments) == (comments.count > 1 ? 1 : nil))
    }

    @Test("A usable comment, or none, says nothing")
    func silentWhenUsable() {
        #expect(OggVorbisComments.androidHapticWarning(channels: 3, comments: ["ANDROID_HAPTIC=1", "ENCODER=x"]) == nil)
        #expect(OggVorbisComments.androidHapticWarning(channels: 2, comments: ["TITLE=t"]) == nil)
    }

    @Test("Read from a written Ogg Vorbis file: 3 on 3 channels is named")
    func fromFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("haptic-\(UUID().uuidString).ogg").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try OggVorbisWriter(writing: path, sampleRate: SampleRate(48_000)!, channels: 3, comments: [(tag: "ANDROID_HAPTIC", value: "3")])
        let frames = [Float](repeating: 0.1, count: 4_800 * 3)
        try frames.withUnsafeBufferPointer { try writer.write($0) }
        try writer.close()
        let bytes = MemoryByteSource(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))))
        #expect(AudioStream.androidHapticChannels(of: bytes, channels: 3) == nil)
        #expect(AudioStream.androidHapticWarning(of: bytes, channels: 3)?.contains("ANDROID_HAPTIC=3 is not 1 or 2") == true)
    }
}
