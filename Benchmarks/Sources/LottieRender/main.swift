// Frame render time per corpus animation at 256×256 and 1920×1080: our wrapper
// (`LottieRenderer`, content mode fit) side by side with rlottie's C API called straight from a
// small C target, in the same run: each side loads the animation once and renders the same frames
// after an untimed warm-up, alternating which goes first, best of nine. Target: our overhead ≤ 10 %.
//
//   swift run -c release lottie-render [--frames N] [--only NAME]
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
/// `--only NAME`: measure the animations whose file name contains NAME.
let only: String? = CommandLine.arguments.firstIndex(of: "--only").flatMap {
    $0 + 1 < CommandLine.arguments.count ? CommandLine.arguments[$0 + 1] : nil
}
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().path
let folder = root + "/../shared/corpus/lottie"
guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder).filter({ $0.hasSuffix(".json") }).sorted() else {
    print("note: corpus absent (\(folder)): nothing to measure")
    exit(0)
}

/// One animation loaded once by each side; every timing renders the same frames on both.
final class Pair {
    let renderer: LottieRenderer
    let reference: UnsafeMutableRawPointer
    let total: Int

    init?(_ json: [UInt8]) {
        guard let renderer = try? LottieRenderer(jsonData: json) else { return nil }
        let handle = json.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { pulsar_bench_rlottie_open($0.baseAddress, $0.count) }
        }
        guard let handle else { return nil }
        self.renderer = renderer
        reference = handle
        total = max(renderer.animation.totalFrames, 1)
    }

    deinit { pulsar_bench_rlottie_close(reference) }

    func ours(_ canvas: inout ARGB32Image, first: Int) throws -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        for i in 0..<frames { try renderer.render(frame: (first + i) % total, into: &canvas) }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    func theirs(_ buffer: inout [UInt32], width: Int, height: Int, first: Int) -> Double {
        pulsar_bench_rlottie_time(reference, Int32(width), Int32(height), Int32(first), Int32(frames), &buffer)
    }
}

print("ms per frame, \(frames) frames each, ours (LottieRenderer) vs rlottie's C API straight:")
print("")
print("| animation | 256×256 ours | rlottie | overhead | 1920×1080 ours | rlottie | overhead |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
var overheads: [Double] = []
for name in names where only.map({ name.contains($0) }) ?? true {
    guard let data = FileManager.default.contents(atPath: folder + "/" + name) else { continue }
    guard let pair = Pair([UInt8](data)) else {
        print("| \(name) | — | — | — | — | — | — |")
        continue
    }
    var cells: [String] = []
    for (w, h) in [(256, 256), (1920, 1080)] {
        var canvas = ARGB32Image(width: w, height: h)
        var buffer = [UInt32](repeating: 0, count: w * h)
        // Warm-up (untimed): each side builds its render tree and caches at this size, over
        // the same frames the timings render.
        _ = try? pair.ours(&canvas, first: 0)
        _ = pair.theirs(&buffer, width: w, height: h, first: 0)
        // Then alternate the order; the best of nine of each (the shared machine's noise is
        // tens of percent on a 3 ms run).
        var a = Double.infinity, b = Double.infinity
        for round in 0..<9 {
            if round % 2 == 0 {
                a = min(a, (try? pair.ours(&canvas, first: 0)) ?? .nan)
                b = min(b, pair.theirs(&buffer, width: w, height: h, first: 0))
            } else {
                b = min(b, pair.theirs(&buffer, width: w, height: h, first: 0))
                a = min(a, (try? pair.ours(&canvas, first: 0)) ?? .nan)
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
