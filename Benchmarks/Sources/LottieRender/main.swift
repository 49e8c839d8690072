// Frame render time per corpus animation at 256×256 and 1920×1080: our wrapper
// (`LottieRenderer`, content mode fit) side by side with rlottie's C API called straight from a
// small C target, in the same run, alternating which goes first. Target: our overhead ≤ 10 %.
//
//   swift run -c release lottie-render [--frames N]
import CRlottieBench
import Foundation
import PulsarLottieRender

let frames: Int = {
    if let i = CommandLine.arguments.firstIndex(of: "--frames"), i + 1 < CommandLine.arguments.count,
       let n = Int(CommandLine.arguments[i + 1]) {
        return n
    }
    return 30
}()
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().path
let folder = root + "/../shared/corpus/lottie"
guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder).filter({ $0.hasSuffix(".json") }).sorted() else {
    print("note: corpus absent (\(folder)): nothing to measure")
    exit(0)
}

func ours(_ json: [UInt8], _ width: Int, _ height: Int) throws -> Double {
    let renderer = try LottieRenderer(jsonData: json)
    let total = max(renderer.animation.totalFrames, 1)
    var canvas = ARGB32Image(width: width, height: height)
    let start = Date()
    for i in 0..<frames { try renderer.render(frame: i % total, into: &canvas) }
    return Date().timeIntervalSince(start)
}

func theirs(_ json: [UInt8], _ width: Int, _ height: Int) -> Double {
    var buffer = [UInt32](repeating: 0, count: width * height)
    return json.withUnsafeBufferPointer { bytes in
        bytes.withMemoryRebound(to: CChar.self) { text in
            pulsar_bench_rlottie(text.baseAddress, text.count, Int32(width), Int32(height), Int32(frames), &buffer)
        }
    }
}

print("ms per frame, \(frames) frames each, ours (LottieRenderer) vs rlottie's C API straight:")
print("")
print("| animation | 256×256 ours | rlottie | overhead | 1920×1080 ours | rlottie | overhead |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
var overheads: [Double] = []
for name in names {
    guard let data = FileManager.default.contents(atPath: folder + "/" + name) else { continue }
    let json = [UInt8](data)
    var cells: [String] = []
    for (w, h) in [(256, 256), (1920, 1080)] {
        // Alternate the order, take the best of three of each.
        var a = Double.infinity, b = Double.infinity
        for round in 0..<3 {
            if round % 2 == 0 {
                a = min(a, (try? ours(json, w, h)) ?? .nan)
                b = min(b, theirs(json, w, h))
            } else {
                b = min(b, theirs(json, w, h))
                a = min(a, (try? ours(json, w, h)) ?? .nan)
            }
        }
        guard a.isFinite, b > 0 else {
            cells += ["—", "—", "—"]
            continue
        }
        let overhead = (a - b) / b * 100
        overheads.append(overhead)
        cells += [String(format: "%.3f", a / Double(frames) * 1000), String(format: "%.3f", b / Double(frames) * 1000),
                  String(format: "%+.1f %%", overhead)]
    }
    print("| \(name) | " + cells.joined(separator: " | ") + " |")
}
let sorted = overheads.sorted()
if !sorted.isEmpty {
    print("")
    print("overhead over \(sorted.count) measurements: median \(String(format: "%+.1f", sorted[sorted.count / 2])) %, worst \(String(format: "%+.1f", sorted.last!)) %")
}
