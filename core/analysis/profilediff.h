#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/breakdown.h"
#include "core/analysis/projection.h"

namespace reach {

// Two breakdowns compared: "before" (A) and "after" (B), e.g. eager against compiled, or a
// workload before and after a kernel was swapped in. Every difference is B minus A: negative
// times are time saved. Shares are of each side's own GPU time, their differences in
// percentage points (as fractions: 0.01 is one point).

// One side's totals, as its breakdown has them.
struct DiffSide {
    std::string workload, source, sourceHash, device;
    double gpuTimeUs = 0, busyTimeUs = 0, spanUs = 0, classifiedShare = 0;
    std::array<double, 4> categoryUs{};  // indexed by Category
    std::string rulesName, rulesHash;

    double busyShare() const;  // busy / span; 0 without a span
    double share(Category c) const;
};

// One row of a comparison: a category, a family or a kernel key, with its time on each side.
struct DiffRow {
    std::string key;  // category key, family, or a kernel's display name
    std::string op;   // kernels: the launching (dominant) operator; empty when none
    double aUs = 0, bUs = 0;
    double aShare = 0, bShare = 0;  // of that side's GPU time
    // Kernel rows only: the launches, the category and family (of the larger side's largest
    // kernel) and the full names that fold into this key on each side, largest first.
    int64_t aCalls = 0, bCalls = 0;
    Category category = Category::Unclassified;
    std::string family;
    std::vector<std::string> aNames, bNames;

    double deltaUs() const { return bUs - aUs; }
    double deltaShare() const { return bShare - aShare; }
};

struct ProfileDiff {
    DiffSide a, b;
    std::vector<DiffRow> categories;  // the four, in display order
    std::vector<DiffRow> families;    // every family of either side, largest |delta| first
    // Kernels are matched by (display name, dominant launching operator): the same op launched
    // by the same operator. A compiled profile's kernels match eager ones only when that key
    // matches; kernels whose key is on one side only are listed there. Matched rows: largest
    // |delta| first; one-sided rows: largest time first.
    std::vector<DiffRow> kernels, onlyA, onlyB;

    double gpuDeltaUs() const { return b.gpuTimeUs - a.gpuTimeUs; }
    double busyShareDelta() const { return b.busyShare() - a.busyShare(); }
    // Sum of every kernel row's difference (matched, minus only-in-A, plus only-in-B): equals
    // gpuDeltaUs() up to rounding, since every kernel of either side is in exactly one row.
    double kernelDeltaSumUs() const;
};

ProfileDiff diffBreakdowns(const Breakdown& a, const Breakdown& b);

// ---- The projection check -----------------------------------------------------------------------
// With a candidate kernel's speedup and the "before" profile, the projected saving (DOMAIN.md,
// Amdahl: t * (1 - 1/s) for each kernel it replaces) next to the saving measured in "after".

struct Candidate {
    std::string pattern;  // POSIX extended, case-insensitive, over A's display or full names
    double speedup = 1;   // > 0
};

struct CandidateCheck {
    Candidate candidate;
    std::vector<std::string> keys;  // the A kernel rows it matched: "display name [operator]"
    double aUs = 0;                 // A's time of those kernels
    double bUs = 0;                 // B's time under the same match keys
    double projectedSavingUs() const { return aUs * (1.0 - 1.0 / candidate.speedup); }
    double measuredSavingUs() const { return aUs - bUs; }
};

struct ProjectionCheck {
    std::vector<CandidateCheck> candidates;  // in the order given
    double aGpuTimeUs = 0, bGpuTimeUs = 0;
    WallClock aClock, bClock;  // each profile's GPU time, busy time and span
    // The projected saving on A's profiled wall clock (idle gaps unchanged, capped by busy time:
    // WallClock::wallShare), and the span B measured against A's; 0 without spans.
    double projectedWallShare() const;
    double measuredWallShare() const;
    double aUs() const;  // sums over candidates
    double bUs() const;
    double projectedSavingUs() const;
    double measuredSavingUs() const;
    // Projected end-to-end: 1 / (1 - saved/A); measured: A / B, over the whole GPU time.
    double projectedSpeedup() const;
    double measuredSpeedup() const;
};

// Each of A's kernel rows (matched or only in A) goes to the first candidate whose pattern
// matches its display name or one of its full names, so no time is counted twice. Throws
// InputError (file "--candidate", place the pattern) when a pattern does not compile or a speedup
// is not positive.
ProjectionCheck checkCandidates(const ProfileDiff& diff, const std::vector<Candidate>& candidates);

// What every projected number assumes (DOMAIN.md), for text and JSON.
inline constexpr const char* kCandidateAssumptions =
    "projected saving = sum of t * (1 - 1/s) over the before profile's kernels each candidate "
    "matches (Amdahl); the candidate is assumed to replace those kernels one for one with no "
    "other effect on the run; measured saving = before minus after under the same kernel keys "
    "(display name and launching operator), so work that moved to kernels with other keys "
    "counts as saved there and shows up in the total";

}  // namespace reach
