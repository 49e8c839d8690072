import FuzzDriver

/// libFuzzer's `main` for the `actuator` target (SwiftPM names an executable's entry `fuzz_actuator_main`).
@_cdecl("fuzz_actuator_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer("actuator", argc, argv)
}
