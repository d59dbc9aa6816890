#include "core/headroom/headroom.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <utility>

namespace reach {

namespace {

bool containsTf32(std::string_view name) {
    for (size_t i = 0; i + 4 <= name.size(); ++i) {
        if (std::tolower(static_cast<unsigned char>(name[i])) == 't' &&
            std::tolower(static_cast<unsigned char>(name[i + 1])) == 'f' && name[i + 2] == '3' &&
            name[i + 3] == '2')
            return true;
    }
    return false;
}

// Host <-> device copies run at the link's speed (PCIe, NVLink-C2C), which the DRAM roofline
// does not model: they get no estimate. Device-to-device copies are DRAM traffic.
bool hostTransfer(const ClassifiedKernel& k) {
    return k.stats.kind == ActivityKind::Memcpy && k.stats.name.find("DtoD") == std::string::npos;
}

// All the GPU time one (operator, shapes) launched, over every kernel.
struct Group {
    double us = 0;
    int64_t opCalls = 0;
    int listBytes = 0;
    bool tf32 = false;
    std::vector<std::pair<size_t, double>> parts;  // (kernel index, its time in this group)
};

}  // namespace

void HeadroomTotals::add(const KernelRoofline& k) {
    us += k.us;
    estimatedUs += k.estimatedUs;
    solUs += k.solUs;
    headroomUs += k.headroomUs();
}

double rooflineUs(const Work& w, const GpuSpec& gpu, bool tf32) {
    const Peak p = w.peak == Peak::Fp32Gemm && tf32 ? Peak::Tf32 : w.peak;
    const double bw = gpu.bytesPerSecond(), peak = gpu.flopsPerSecond(p);
    const double memUs = bw > 0 ? w.bytes / bw * 1e6 : 0;
    const double cmpUs = peak > 0 ? w.flops / peak * 1e6 : 0;
    return std::max(memUs, cmpUs);
}

std::optional<double> Headroom::wallShare(double shareOfGpuTime) const {
    if (!clock.known())
        return std::nullopt;
    return clock.wallShare(shareOfGpuTime);
}

double Headroom::boundSpeedup() const {
    return endToEndSpeedup(headroomShare());
}

double Headroom::categoryBoundSpeedup(Category c) const {
    return endToEndSpeedup(categoryHeadroomShare(c));
}

std::vector<const KernelRoofline*> Headroom::aboveRoofline(double tolerance) const {
    std::vector<const KernelRoofline*> out;
    for (const KernelRoofline& k : kernels) {
        if (k.estimatedUs > 0 && k.fractionOfSol() > 1 + tolerance)
            out.push_back(&k);
    }
    return out;
}

std::string Headroom::noShapesWhy() const {
    if (hasShapes)
        return "";
    return shapesKept ? "recorded without shapes (record_shapes=False)"
                      : "the project was saved by an older Reach, which did not keep operator "
                        "shapes: import the trace again";
}

Headroom computeHeadroom(const Breakdown& b, const GpuSpec& gpu) {
    Headroom h;
    h.shapesKept = b.shapesKept;
    h.workload = b.workload;
    h.device = b.device;
    h.gpu = gpu;
    h.gpuTimeUs = b.gpuTimeUs;
    h.clock = WallClock{b.gpuTimeUs, b.busyTimeUs, b.spanUs};

    std::vector<KernelRoofline> rows(b.kernels.size());
    std::map<std::pair<std::string, std::string>, double> missing;  // (reason, op) -> us
    std::map<std::pair<std::string, std::string>, Group> groups;
    for (size_t i = 0; i < b.kernels.size(); ++i) {
        const ClassifiedKernel& k = b.kernels[i];
        KernelRoofline& r = rows[i];
        r.name = k.stats.name;
        r.kind = k.stats.kind;
        r.category = k.category;
        r.family = k.family;
        r.calls = k.stats.calls;
        r.us = k.stats.totalUs;
        if (!k.stats.shapedCalls.empty())
            h.hasShapes = true;
        if (hostTransfer(k)) {
            missing[{"host transfer (link bandwidth not modelled)", ""}] += r.us;
            continue;
        }
        double shaped = 0;
        for (const ShapedCall& c : k.stats.shapedCalls) {
            Group& g = groups[{c.op, c.signature}];
            g.us += c.totalUs;
            g.opCalls = std::max(g.opCalls, c.opCalls > 0 ? c.opCalls : c.calls);
            if (g.listBytes == 0 && k.stats.kind == ActivityKind::Kernel)
                g.listBytes = elementBytesFromKernelName(k.stats.name);
            g.tf32 = g.tf32 || containsTf32(k.stats.name);
            g.parts.emplace_back(i, c.totalUs);
            shaped += c.totalUs;
        }
        // Sums of the same times in another order differ in the last bits: not a gap.
        const double linked = k.stats.linkedUs();
        const double eps = 1e-9 * r.us;
        if (linked > shaped + eps)
            missing[{"operator without recorded shapes", k.stats.dominantOperator()}] +=
                linked - shaped;
        if (r.us > linked + eps)
            missing[{"no launching operator", ""}] += r.us - linked;
    }

    // Per kernel: the operator with the most estimated time.
    std::vector<std::map<std::string, double>> opTime(rows.size());
    for (const auto& [key, g] : groups) {
        const auto& [op, signature] = key;
        std::optional<Work> w;
        const WorkEntry* entry = findWorkEntry(op);
        if (entry) {
            if (auto args = parseCallSignature(signature))
                w = operatorWork(op, *args, WorkContext{g.listBytes});
        }
        if (!w) {
            missing[{entry ? "shapes the formula cannot use" : "no formula for the operator",
                     op}] += g.us;
            continue;
        }
        const double n = double(g.opCalls);
        const double callSol = rooflineUs(*w, gpu, g.tf32);
        h.calls.push_back({op, signature, g.us, n * callSol});
        const Peak peak = w->peak == Peak::Fp32Gemm && g.tf32 ? Peak::Tf32 : w->peak;
        const bool memBound =
            w->bytes / gpu.bytesPerSecond() >= w->flops / gpu.flopsPerSecond(peak);
        for (const auto& [ki, us] : g.parts) {
            const double share = g.us > 0 ? us / g.us : 0;
            KernelRoofline& r = rows[ki];
            r.estimatedUs += us;
            r.bytes += n * w->bytes * share;
            r.flops += n * w->flops * share;
            r.solUs += n * callSol * share;
            if (memBound)
                r.memoryBoundSolUs += n * callSol * share;
            opTime[ki][op] += us;
        }
    }
    for (size_t i = 0; i < rows.size(); ++i) {
        double best = 0;
        for (const auto& [op, us] : opTime[i]) {
            if (us > best) {
                best = us;
                rows[i].op = op;
            }
        }
        const KernelRoofline& r = rows[i];
        h.total.add(r);
        h.categories[static_cast<size_t>(r.category)].add(r);
        h.families[r.family.empty() ? std::string(categoryKey(r.category)) : r.family].add(r);
    }
    std::stable_sort(rows.begin(), rows.end(), [](const auto& x, const auto& y) {
        return x.headroomUs() != y.headroomUs() ? x.headroomUs() > y.headroomUs() : x.us > y.us;
    });
    h.kernels = std::move(rows);
    for (const auto& [key, us] : missing) {
        if (us > 0)
            h.noEstimate.push_back({key.first, key.second, us});
    }
    std::stable_sort(h.noEstimate.begin(), h.noEstimate.end(),
                     [](const auto& x, const auto& y) { return x.us > y.us; });
    return h;
}

}  // namespace reach
