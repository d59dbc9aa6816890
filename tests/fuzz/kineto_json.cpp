// A PyTorch profiler (Kineto) trace as plain JSON: the streaming scanner and the Kineto reader.
#include "core/trace/profilereader.h"
#include "tests/fuzz/fuzzsupport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace reach;
    const std::string path = fuzz::writeInput("trace.json", fuzz::asText(data, size));
    fuzz::acceptingInputErrors([&] { fuzz::useWorkload(readProfile(path)); });
    return 0;
}
