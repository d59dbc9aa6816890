#include "core/trace/kinetomerge.h"

#include <algorithm>
#include <set>
#include <tuple>
#include <unordered_map>

#include "core/base/demangle.h"

namespace reach::kineto {

void KinetoMerge::add(EventFold&& f) {
    // Local kernels (raw names) to this merge's (demangled names), in the order they first
    // appear, which is the order one reading of the whole file creates them in.
    std::vector<uint32_t> global(f.kernels.size());
    // The first shaped launch of a kernel that has none yet: the earliest activity among the
    // raw names that demangle to it.
    std::unordered_map<uint32_t, uint32_t> shapeFrom;
    for (size_t l = 0; l < f.kernels.size(); ++l) {
        EventFold::Kernel& k = f.kernels[l];
        uint32_t g;
        auto it = m_rawKernelIndex.find(k.rawName);
        if (it != m_rawKernelIndex.end()) {
            g = it->second;
        } else {
            std::string name = demangle(k.rawName);
            auto jt = m_kernelIndex.find(name);
            if (jt != m_kernelIndex.end()) {
                g = jt->second;
            } else {
                g = uint32_t(m_kernels.size());
                KernelAcc acc;
                acc.stats.name = name;
                acc.stats.kind = k.cat == Cat::Memcpy   ? ActivityKind::Memcpy
                                 : k.cat == Cat::Memset ? ActivityKind::Memset
                                                        : ActivityKind::Kernel;
                acc.stats.minUs = std::numeric_limits<double>::infinity();
                m_kernels.push_back(std::move(acc));
                m_kernelIndex.emplace(std::move(name), g);
            }
            m_rawKernelIndex.emplace(k.rawName, g);
        }
        global[l] = g;
        std::vector<int>& streams = m_kernels[g].stats.streams;
        if (streams != k.streams) {
            std::vector<int> both;
            std::set_union(streams.begin(), streams.end(), k.streams.begin(), k.streams.end(),
                           std::back_inserter(both));
            streams = std::move(both);
        }
        if (k.shapeAt >= 0 && !m_kernels[g].haveLaunchShape) {
            auto [s, fresh] = shapeFrom.emplace(g, uint32_t(l));
            if (!fresh && f.kernels[s->second].shapeAt > k.shapeAt)
                s->second = uint32_t(l);
        }
    }
    for (const auto& [g, l] : shapeFrom) {
        KernelAcc& acc = m_kernels[g];
        acc.haveLaunchShape = true;
        acc.stats.grid = std::move(f.kernels[l].grid);
        acc.stats.block = std::move(f.kernels[l].block);
    }

    if (m_firstGpuDevice == kNoId)
        m_firstGpuDevice = f.firstDevice;
    if (m_gpu.empty() && !f.activities.empty()) {
        // Intervals relative to the first GPU activity: absolute microsecond timestamps (~5e12)
        // leave too few digits of a double for ns-exact interval arithmetic.
        m_gpuBase = f.activities.front().ts;
    }
    for (const EventFold::Activity& a : f.activities) {
        const uint32_t g = global[a.kernel];
        KernelStats& s = m_kernels[g].stats;
        ++s.calls;
        s.totalUs += a.dur;
        s.minUs = std::min(s.minUs, a.dur);
        s.maxUs = std::max(s.maxUs, a.dur);
        const double begin = a.ts - m_gpuBase;
        m_gpu.push_back({begin, begin + a.dur, g});
        m_gpuExternalId.push_back(a.externalId);
        m_gpuCorrelation.push_back(a.correlation);
        m_gpuDur.push_back(a.dur);
    }

    std::vector<uint32_t> ops(f.ops.size()), sigs(f.signatures.size());
    for (size_t i = 0; i < f.ops.size(); ++i)
        ops[i] = intern(f.ops[i], m_opIndex, m_opNames);
    for (size_t i = 0; i < f.signatures.size(); ++i)
        sigs[i] = intern(f.signatures[i], m_sigIndex, m_sigs);
    for (const EventFold::CpuOp& c : f.cpuOps) {
        m_cpuOps.push_back(
            {c.externalId, ops[c.op],
             c.signature == EventFold::kNoSignature ? EventFold::kNoSignature : sigs[c.signature]});
    }
    m_graphLaunches.insert(m_graphLaunches.end(), f.graphLaunches.begin(), f.graphLaunches.end());
    m_spanBegin = std::min(m_spanBegin, f.spanBegin);
    m_spanEnd = std::max(m_spanEnd, f.spanEnd);
}

Workload KinetoMerge::finish(std::vector<std::pair<int64_t, std::string>> devices,
                             std::string sha256) {
    Workload w;
    w.format = "kineto";
    w.sourceHash = std::move(sha256);
    for (const auto& [id, name] : devices) {
        if (id == m_firstGpuDevice)
            w.device = name;
    }
    if (w.device.empty() && !devices.empty())
        w.device = devices.front().second;

    // Launching operators: sort the cpu_op ids once, then look each GPU activity up.
    std::stable_sort(m_cpuOps.begin(), m_cpuOps.end(),
                     [](const auto& a, const auto& b) { return a.externalId < b.externalId; });
    std::sort(m_graphLaunches.begin(), m_graphLaunches.end());
    std::vector<std::unordered_map<uint32_t, OperatorTime>> ops(m_kernels.size());
    // (operator, signature) -> time, per kernel: the shaped calls.
    std::vector<std::unordered_map<uint64_t, ShapedCall>> shaped(m_kernels.size());
    // (kernel, operator call) pairs already counted: a call that launched a kernel twice is one
    // operator call (ShapedCall::opCalls), which is what the work of a call multiplies.
    std::set<std::pair<uint32_t, int64_t>> countedCalls;
    for (size_t i = 0; i < m_gpu.size(); ++i) {
        const uint32_t kernel = m_gpu[i].tag;
        if (m_gpuCorrelation[i] != kNoId &&
            std::binary_search(m_graphLaunches.begin(), m_graphLaunches.end(),
                               m_gpuCorrelation[i])) {
            KernelStats& s = m_kernels[kernel].stats;
            ++s.graphCalls;
            s.graphUs += m_gpuDur[i];
        }
        int64_t ext = m_gpuExternalId[i];
        if (ext == kNoId)
            continue;
        auto it = std::lower_bound(m_cpuOps.begin(), m_cpuOps.end(), ext,
                                   [](const CpuOpRef& a, int64_t v) { return a.externalId < v; });
        if (it == m_cpuOps.end() || it->externalId != ext)
            continue;
        OperatorTime& o = ops[kernel][it->op];
        o.totalUs += m_gpuDur[i];
        ++o.calls;
        if (it->signature != EventFold::kNoSignature) {
            ShapedCall& c = shaped[kernel][(uint64_t(it->op) << 32) | it->signature];
            if (c.calls == 0) {
                c.op = m_opNames[it->op];
                c.signature = m_sigs[it->signature];
            }
            ++c.calls;
            c.totalUs += m_gpuDur[i];
            if (countedCalls.emplace(kernel, ext).second)
                ++c.opCalls;
        }
    }
    for (size_t k = 0; k < m_kernels.size(); ++k) {
        KernelStats s = std::move(m_kernels[k].stats);
        for (auto& [op, t] : ops[k]) {
            t.op = m_opNames[op];
            s.operators.push_back(std::move(t));
        }
        std::sort(s.operators.begin(), s.operators.end(), [](const auto& a, const auto& b) {
            return a.totalUs != b.totalUs ? a.totalUs > b.totalUs : a.op < b.op;
        });
        for (auto& [key, c] : shaped[k])
            s.shapedCalls.push_back(std::move(c));
        std::sort(s.shapedCalls.begin(), s.shapedCalls.end(), [](const auto& a, const auto& b) {
            return a.totalUs != b.totalUs
                       ? a.totalUs > b.totalUs
                       : std::tie(a.op, a.signature) < std::tie(b.op, b.signature);
        });
        w.gpuTimeUs += s.totalUs;
        w.kernels.push_back(std::move(s));
    }
    std::sort(w.kernels.begin(), w.kernels.end(), [](const auto& a, const auto& b) {
        return a.totalUs != b.totalUs ? a.totalUs > b.totalUs : a.name < b.name;
    });
    w.eventCount = int64_t(m_gpu.size());
    w.busyTimeUs = unionLength(m_gpu);
    w.spanUs = m_spanEnd > m_spanBegin ? m_spanEnd - m_spanBegin : 0;
    return w;
}

}  // namespace reach::kineto
