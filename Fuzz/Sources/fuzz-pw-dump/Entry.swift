import FuzzDriver

/// libFuzzer's `main` for the `pw-dump` target (SwiftPM names an executable's entry `fuzz_pw_dump_main`).
@_cdecl("fuzz_pw_dump_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer("pw-dump", argc, argv)
}
