// A PyTorch profiler (Kineto) trace as plain JSON: the streaming scanner and the Kineto reader,
// read on one thread and split into small pieces on three: both must give the same Workload to
// the last bit, or the same error line (docs/readers.md: the split reading is exact).
#include <cstdlib>

#include "core/trace/profilereader.h"
#include "tests/core/trace/workloaddump.h"
#include "tests/fuzz/fuzzsupport.h"

namespace {

std::string outcome(const std::string& path, const reach::KinetoOptions& options) {
    try {
        return reach::dumpWorkload(reach::readProfile(path, {}, {}, options));
    } catch (const reach::InputError& e) {
        return std::string("InputError: ") + e.what();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace reach;
    const std::string path = fuzz::writeInput("trace.json", fuzz::asText(data, size));
    fuzz::acceptingInputErrors([&] { fuzz::useWorkload(readProfile(path)); });
    KinetoOptions serial, split;
    serial.threads = 0;
    split.threads = 3;
    split.pieceBytes = 64;
    if (outcome(path, serial) != outcome(path, split))
        std::abort();
    return 0;
}
