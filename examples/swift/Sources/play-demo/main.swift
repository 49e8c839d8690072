// Plays the demo bundle's heartbeat (audio and haptics) on the simulated device, lowers its
// intensity half-way, and reports what the device played.
//
//   swift run play-demo [BUNDLE [PRESET]]
//
// With no argument it plays ../../out/demo.pulsar (`make demo` builds it), or the demo pattern
// when the bundle has not been built. Exit codes: 0 played, 1 could not.
import Foundation
import PulsarSession

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("play-demo: error: \(message)\n".utf8))
    exit(1)
}

let arguments = CommandLine.arguments.dropFirst()
let bundle = arguments.first ?? "../../out/demo.pulsar"
do {
    // One session: the simulated device (it plays in real time and needs no sound card), audio
    // and haptics as two channels.
    let session = try Session(device: "sim", layout: .mix)
    let content: SessionContent
    if FileManager.default.fileExists(atPath: bundle) {
        content = try SessionContent.preset(arguments.dropFirst().first ?? "heartbeat", inBundle: bundle)
        print("playing \(bundle), preset \(content.mixer.preset.id)")
    } else {
        content = try SessionContent.pattern(at: "../../Resources/patterns/demo.json", settings: .init(layout: .mix))
        print("\(bundle) not built (make demo): playing the demo pattern")
    }
    let voice = try session.voice(content)
    guard voice.play() else { fail("the engine refused to play") }

    // Half-way through, fade the haptics to half intensity over 100 ms.
    let halfWay = content.mixer.durationMilliseconds / 2000
    let started = session.time
    var lowered = false
    while !voice.hasEnded {
        session.poll()
        let seconds = Double(session.time.nanoseconds - started.nanoseconds) / 1e9
        if !lowered, seconds >= halfWay {
            lowered = voice.setIntensity(0.5, over: 0.1)
            if let ms = voice.contentTime(at: session.time) { print(String(format: "at %.0f ms of content: intensity 0.5", ms)) }
        }
        usleep(5_000)
    }
    try session.stop()
    print("played \(session.played.main) frames on \(session.name)")
} catch {
    fail("\(error)")
}
