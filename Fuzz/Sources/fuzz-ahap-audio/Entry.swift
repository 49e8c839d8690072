import FuzzDriver

/// libFuzzer's `main` for the `ahap-audio` target (SwiftPM names an executable's entry `fuzz_ahap_audio_main`).
@_cdecl("fuzz_ahap_audio_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer("ahap-audio", argc, argv)
}
