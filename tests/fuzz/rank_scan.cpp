// One rank of a distributed run (core/distributed): the streaming scan of a hostile trace, then
// the run of it beside itself (ranks 0 and 1): an InputError or a run whose numbers keep their
// invariants (waits and transfers not negative, one entry per rank).
#include <cmath>
#include <cstdlib>

#include "core/distributed/runanalysis.h"
#include "tests/fuzz/fuzzsupport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace reach;
    const std::string path = fuzz::writeInput("rank-0.json", fuzz::asText(data, size));
    fuzz::acceptingInputErrors([&] {
        RankTrace a = scanRank(path);
        RankTrace b = a;
        a.rank = 0;
        b.rank = 1;
        const RunAnalysis run = analyzeRun({a, b});
        if (run.offsets.size() != 2 || run.communication.size() != 2)
            std::abort();
        for (const MatchedCollective& m : run.matched) {
            if (m.arrival.size() != 2 || m.waitUs.size() != 2 || !(m.skewUs >= 0))
                std::abort();
            for (double w : m.waitUs)
                if (std::isfinite(w) && w < -1e-6 * (1 + std::fabs(m.transferUs)))
                    std::abort();
        }
    });
    return 0;
}
