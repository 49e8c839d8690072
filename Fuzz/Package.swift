// swift-tools-version:6.0
import PackageDescription

// libFuzzer targets over `PulsarFuzzing`'s entries, one executable each. Built by `make fuzz`
// (release, `-sanitize=fuzzer,address`, linked with lld: see the Makefile), never by `make test`.
let targets = ["pattern", "bundle", "lottie", "replay", "script", "arguments", "script-play", "ogg", "ahap-audio", "capi", "pw-dump", "actuator", "video-options"]

let package = Package(
    name: "PulsarFuzz",
    dependencies: [.package(name: "pulsar", path: "..")],
    targets: [
        .target(name: "FuzzDriver", dependencies: [.product(name: "PulsarFuzzing", package: "pulsar")], path: "Sources/FuzzDriver"),
    ] + targets.map { name in
        // `capi` calls libpulsar through its C symbols: the library is linked in, built as the
        // targets are (instrumented), and looked up in the process.
        let library: [Target.Dependency] = name == "capi" ? [.product(name: "PulsarC", package: "pulsar")] : []
        return .executableTarget(name: "fuzz-\(name)", dependencies: ["FuzzDriver"] + library, path: "Sources/fuzz-\(name)")
    }
)
