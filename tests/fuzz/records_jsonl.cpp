// Reach's own evaluation records (JSON Lines).
#include "core/records/recordreader.h"
#include "tests/fuzz/fuzzsupport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace reach;
    const std::string path = fuzz::writeInput("records.jsonl", fuzz::asText(data, size));
    fuzz::acceptingInputErrors([&] { fuzz::useRecords(readRecords(path, {})); });
    return 0;
}
