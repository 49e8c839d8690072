import PulsarFuzzing

@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<CInt>,
                                 _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                                 _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

/// The entry libFuzzer calls for each input (one target per process).
nonisolated(unsafe) private var entry: ([UInt8]) -> Void = { _ in }

/// Hands the process to libFuzzer, feeding each input to the `FuzzEntry` target `name`.
public func runFuzzer(_ name: String, _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    guard let target = FuzzEntry.targets[name] else { fatalError("no fuzz target \(name)") }
    // Found before the first input, so that libFuzzer counts the library's coverage from the start.
    if name == "capi", !CAPI.isAvailable { fatalError("fuzz-capi: libpulsar's pulsar_* symbols are not in the process") }
    entry = target
    var count = argc
    var vector = argv
    return LLVMFuzzerRunDriver(&count, &vector) { data, size in
        entry(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
        return 0
    }
}
