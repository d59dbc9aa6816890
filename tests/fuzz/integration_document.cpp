// An integration document (reach-cli integrate --json), as the projection view and `reach-cli
// figure projection --integration` read it: every key checked, the savings recomputed from the
// runs, the signature checked, the speed-of-light bound applied (issue 37).
#include <cstdlib>

#include "core/base/evidence.h"
#include "core/ownbenchmark/integrationsummary.h"
#include "tests/fuzz/fuzzsupport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace reach;
    // A key of the fuzzer's own, never the user's.
    static const bool keyed = [] {
        return ::setenv("REACH_KEY_DIR", (fuzz::workDir() + "/key").c_str(), 1) == 0;
    }();
    (void)keyed;
    const std::string path = fuzz::writeInput("integration.json", fuzz::asText(data, size));
    fuzz::acceptingInputErrors([&] {
        IntegrationSummary s = readIntegrationSummary(path);
        checkAgainstSpeedOfLight(s, 0.5);
        nlohmann::json runs = s.runList;
        (void)dumpJson(runs);
        for (const std::string& d : s.doubts)
            (void)escapeControls(d);
        (void)s.measuredHere();
    });
    return 0;
}
