// libFuzzer entry point only; the harness is in OpusPacketFuzz.swift (`make fuzz` runs it).
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    OpusPacketFuzz.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
