#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/analysis/breakdown.h"
#include "core/analysis/projection.h"
#include "core/base/category.h"
#include "core/headroom/gpus.h"

namespace reach {

// One kernel (aggregated by full name) against the GPU's roofline. Its work comes from its
// launching operator calls: an operator call's bytes and FLOPs (core/headroom/work.h) belong to
// all the GPU time that call launched, and each kernel of the call gets the share of the work and
// of the roofline time that its time is of the call's (docs/headroom.md): so every kernel of one
// (operator, shapes) has the same fraction of speed of light, the operator's.
struct KernelRoofline {
    std::string name;
    ActivityKind kind = ActivityKind::Kernel;
    Category category = Category::Unclassified;
    std::string family;
    std::string op;  // the operator with the most estimated time; empty without an estimate
    int64_t calls = 0;
    double us = 0;                // all of its time
    double estimatedUs = 0;       // the part whose operator call has an estimate
    double bytes = 0, flops = 0;  // work attributed to estimatedUs
    double solUs = 0;             // roofline time of that work, max(bytes / BW, flops / peak)
    double memoryBoundSolUs = 0;  // the part of solUs where bytes / BW is the larger

    double headroomUs() const { return estimatedUs > solUs ? estimatedUs - solUs : 0; }
    double fractionOfSol() const { return estimatedUs > 0 ? solUs / estimatedUs : 0; }
    double achievedBytesPerSecond() const {
        return estimatedUs > 0 ? bytes / (estimatedUs * 1e-6) : 0;
    }
    double achievedFlopsPerSecond() const {
        return estimatedUs > 0 ? flops / (estimatedUs * 1e-6) : 0;
    }
    double intensity() const { return bytes > 0 ? flops / bytes : 0; }  // FLOP per byte
    bool memoryBound() const { return memoryBoundSolUs * 2 >= solUs; }
};

// Sums over a set of kernels (a category, a family, the workload).
struct HeadroomTotals {
    double us = 0, estimatedUs = 0, solUs = 0, headroomUs = 0;
    void add(const KernelRoofline& k);
};

// GPU time without an estimate, by why and which operator ("" when none).
struct NoEstimate {
    std::string reason;
    std::string op;
    double us = 0;
};

// All the GPU time one operator call signature (the operator and its recorded arguments)
// launched, over every kernel, with an estimate: what its roofline time is. The workload's own
// benchmark (core/benchmark) makes one problem per signature, so a problem's speed of light is
// its signature's.
struct CallRoofline {
    std::string op;
    std::string signature;  // as core/trace keeps it (ShapedCall::signature)
    double us = 0;          // every kernel's time under the signature
    double solUs = 0;       // roofline time of all its calls' work
};

// A workload against its GPU's roofline.
struct Headroom {
    // Why no call has shapes, in words the CLI and the GUI both show ("" when some have).
    std::string noShapesWhy() const;

    std::string workload, device;
    GpuSpec gpu;
    double gpuTimeUs = 0;
    WallClock clock;  // the breakdown's GPU time, busy time and span
    bool hasShapes = false;
    bool shapesKept = true;  // false: a project saved by an older Reach lost them (Breakdown)
    HeadroomTotals total;
    std::array<HeadroomTotals, 4> categories{};      // indexed by Category
    std::map<std::string, HeadroomTotals> families;  // family, else the category key
    std::vector<KernelRoofline> kernels;             // largest headroom first
    std::vector<NoEstimate> noEstimate;              // largest first
    std::vector<CallRoofline> calls;                 // signatures with an estimate, by key

    // Share of GPU time with an estimate.
    double coverage() const { return gpuTimeUs > 0 ? total.estimatedUs / gpuTimeUs : 0; }
    // Time saved if every estimated kernel ran at its roofline, as a share of GPU time; the
    // unestimated time stays as it is.
    double headroomShare() const { return share(total.headroomUs); }
    double categoryHeadroomShare(Category c) const {
        return share(categories[static_cast<size_t>(c)].headroomUs);
    }
    // The same saving on the profiled wall clock (WallClock::wallShare); nullopt without a span.
    std::optional<double> wallShare(double shareOfGpuTime) const;
    // The speed-of-light bound: 1 / (1 - headroom share): no kernel, generated or hand-written,
    // makes this profile's estimated time faster (endToEndSpeedup in core/analysis).
    double boundSpeedup() const;
    double categoryBoundSpeedup(Category c) const;
    // Kernels whose estimated time is below their roofline time by more than `tolerance`
    // (fraction of speed of light > 1 + tolerance): a wrong formula or a wrong peak.
    std::vector<const KernelRoofline*> aboveRoofline(double tolerance) const;

private:
    double share(double us) const { return gpuTimeUs > 0 ? us / gpuTimeUs : 0; }
};

// Every kernel of the breakdown against gpu. Needs the breakdown's kernel stats with shaped
// calls (a trace recorded with record_shapes=True); without them everything is "no estimate".
Headroom computeHeadroom(const Breakdown& breakdown, const GpuSpec& gpu);

// The roofline time of one operator call's work on gpu, in microseconds: max(bytes / BW,
// flops / peak), the peak chosen by w.peak (Fp32Gemm: TF32 when tf32 is true).
double rooflineUs(const Work& w, const GpuSpec& gpu, bool tf32 = false);

}  // namespace reach
