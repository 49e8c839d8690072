// Reader scaling: hostile-but-valid inputs that once took quadratic time, loaded by
// `PatternLoader` beside Foundation's `JSONSerialization` on the same bytes; and a transport
// script of a million lines read by `TransportScript` beside a bare split-and-parse of its words.
//
//   swift build -c release && .build/release/reader-scaling
//
// Each row is the best of 3 runs.
import Foundation
import PulsarSession
import PulsarCore

func now() -> Double { Date().timeIntervalSinceReferenceDate }

func best(_ body: () throws -> Void) rethrows -> Double {
    var b = Double.infinity
    for _ in 0..<3 {
        let t = now()
        try body()
        b = min(b, now() - t)
    }
    return b
}

let head = #"{"continuousPattern": {"amplitude": [{"time": 0, "value": 0.5}, {"time": 100, "value": 0.5}]}"#

func escapes(_ n: Int) -> [UInt8] {
    Array((head + #", "note": ""# + String(repeating: #"\n"#, count: n) + "\"}").utf8)
}

func members(_ n: Int) -> [UInt8] {
    var s = head
    s.reserveCapacity(n * 16)
    for k in 0..<n { s += ",\n\"k\(k)\": \(k)" }
    return Array((s + "}").utf8)
}

func overlappingEvents(_ n: Int) -> [UInt8] {
    var s = #"{"Version": 1, "Pattern": ["#
    for k in 0..<n {
        if k > 0 { s += "," }
        s += #"{"Event": {"Time": \#(Double(k) * 0.0001), "EventType": "HapticContinuous", "EventDuration": 10, "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": \#(Double(k % 97) / 97)}]}}"#
    }
    return Array((s + "]}").utf8)
}

print("| input | bytes | PatternLoader | JSONSerialization |")
print("| --- | ---: | ---: | ---: |")
func row(_ name: String, _ bytes: [UInt8], format: PatternFormat) throws {
    let ours = try best { _ = try PatternLoader().decode(bytes, file: "bench", format: format) }
    let data = Data(bytes)
    let foundation = try best { _ = try JSONSerialization.jsonObject(with: data) }
    print("| \(name) | \(bytes.count) | \(String(format: "%.3f", ours)) s | \(String(format: "%.3f", foundation)) s |")
}
try row("1 000 000 escapes in one string", escapes(1_000_000), format: .pulsarJSON)
try row("200 000 unknown members (a warning each)", members(200_000), format: .pulsarJSON)
for n in [20_000, 100_000] {
    try row("\(n) overlapping AHAP continuous events", overlappingEvents(n), format: .ahap)
}

/// A million-line script: pause and resume, 100 lines a millisecond.
func script(_ n: Int) -> String {
    var s = ""
    s.reserveCapacity(n * 20)
    for k in 0..<n { s += "at \(k / 100) \(k % 2 == 0 ? "pause" : "resume")\n" }
    return s
}
let text = script(1_000_000)
let ours = best { _ = try? TransportScript(text: text, name: "bench") }
let bare = best {
    var times = 0.0
    for line in text.split(whereSeparator: \.isNewline) {
        let words = line.split(separator: " ")
        times += Double(words[1]) ?? 0
    }
    precondition(times > 0)
}
print("")
print("| input | bytes | TransportScript | split lines and parse the time |")
print("| --- | ---: | ---: | ---: |")
print("| 1 000 000-line transport script | \(text.utf8.count) | \(String(format: "%.3f", ours)) s | \(String(format: "%.3f", bare)) s |")
