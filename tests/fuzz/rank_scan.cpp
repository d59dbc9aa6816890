// One rank of a distributed run (core/distributed): the streaming scan of a hostile trace, the
// run of it beside itself (ranks 0 and 1), its rank summary written and read back, and the input
// read as a rank summary: an InputError, or numbers that keep their invariants (waits not
// negative, one entry per rank, a summary that reads back as what was written).
#include <cmath>
#include <cstdlib>

#include "core/distributed/ranksummary.h"
#include "core/distributed/runanalysis.h"
#include "tests/fuzz/fuzzsupport.h"

namespace {

void checkRun(const reach::RankTrace& trace) {
    using namespace reach;
    RankTrace a = trace, b = trace;
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
}

void checkRoundTrip(const reach::RankTrace& trace) {
    using namespace reach;
    RankSummary s;
    s.trace = trace;
    if (s.trace.rank < 0)
        s.trace.rank = 0;
    s.gpuTimeUs = trace.gpuUs;
    s.categoryUs[0] = trace.gpuUs;
    const std::string path = fuzz::writeInput("rank-0.summary.json", rankSummaryText(s));
    const RankSummary back = readRankSummary(path);  // what Reach wrote, Reach reads
    if (back.trace.collectives.size() != trace.collectives.size() ||
        back.trace.computeSpans != trace.computeSpans || back.trace.computeUs != trace.computeUs ||
        back.trace.collectiveSpans != trace.collectiveSpans)
        std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace reach;
    const std::string path = fuzz::writeInput("rank-0.json", fuzz::asText(data, size));
    fuzz::acceptingInputErrors([&] {
        const RankTrace trace = scanRank(path);
        checkRun(trace);
        checkRoundTrip(trace);
    });
    fuzz::acceptingInputErrors([&] {
        if (looksLikeRankSummary(path))
            checkRun(readRankSummary(path).trace);
    });
    return 0;
}
