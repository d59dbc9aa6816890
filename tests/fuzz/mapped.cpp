// A leaderboard table read with a column mapping: CSV (REACH_FUZZ_MAPPED_JSON unset) or a JSON
// list (set), one target binary each (fuzz_mapped_csv, fuzz_mapped_json).
#include "core/records/recordreader.h"
#include "tests/fuzz/fuzzsupport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace reach;
#ifdef REACH_FUZZ_MAPPED_JSON
    const char* name = "board.json";
#else
    const char* name = "board.csv";
#endif
    const std::string path = fuzz::writeInput(name, fuzz::asText(data, size));
    RecordReadOptions o;
    ColumnMapping m;
    m.fields = {{"problem", "task"},    {"model", "model"},         {"correct", "ok"},
                {"speedup", "speedup"}, {"candidate_time", "time"}, {"baseline_time", "base"},
                {"level", "level"},     {"compiled", "built"}};
    m.timeUnit = "ms";
    o.mapping = m;
    fuzz::acceptingInputErrors([&] { fuzz::useRecords(readRecords(path, o)); });
    return 0;
}
