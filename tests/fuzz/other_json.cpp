// The smaller JSON readers, one input for all: a published study table, KernelBench degenerate-
// problem measurements (suspicion flags), a controls manifest.
#include "core/analysis/publishedstudy.h"
#include "core/records/suspicion.h"
#include "core/verify/controlset.h"
#include "tests/fuzz/fuzzsupport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace reach;
    const std::string path = fuzz::writeInput("table.json", fuzz::asText(data, size));
    fuzz::acceptingInputErrors([&] { (void)readPublishedStudy(path); });
    fuzz::acceptingInputErrors([&] { (void)readDegenerateProblems(path); });
    fuzz::acceptingInputErrors([&] { (void)loadControls(path, fuzz::workDir()); });
    return 0;
}
