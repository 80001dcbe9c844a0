// libsystemc.so, pulled in by the model libraries, defines main() and needs
// an sc_main. libFuzzer brings its own main (linked whole, so it wins) and
// this is never called; should the library's main ever run instead, it hands
// over to the libFuzzer driver rather than doing nothing.
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" int LLVMFuzzerRunDriver(int* argc, char*** argv, int (*cb)(const uint8_t*, size_t));

extern "C" int sc_main(int argc, char* argv[]) { return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput); }
