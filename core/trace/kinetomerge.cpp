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
    for (EventFold::CollectiveCall& c : f.collectiveCalls) {
        c.activity += uint32_t(m_gpu.size());
        m_collectiveCalls.push_back(std::move(c));
    }
    for (EventFold::CommsRecord& r : f.commsRecords)
        m_commsRecords.push_back(std::move(r));
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
        m_gpuLaneShape.push_back((uint64_t(a.lane) << 32) | a.launchShape);
    }

    std::vector<uint32_t> ops(f.ops.size()), sigs(f.signatures.size());
    for (size_t i = 0; i < f.ops.size(); ++i)
        ops[i] = intern(f.ops[i], m_opIndex, m_opNames);
    for (size_t i = 0; i < f.signatures.size(); ++i)
        sigs[i] = intern(f.signatures[i], m_sigIndex, m_sigs);
    std::vector<uint32_t> threads(f.threads.size());
    for (size_t i = 0; i < f.threads.size(); ++i) {
        threads[i] =
            m_threadIndex.emplace(f.threads[i], uint32_t(m_threadIndex.size())).first->second;
    }
    for (EventFold::CpuOp c : f.cpuOps) {
        c.op = ops[c.op];
        if (c.signature != EventFold::kNoSignature)
            c.signature = sigs[c.signature];
        c.thread = threads[c.thread];
        m_cpuOps.push_back(c);
    }
    for (EventFold::RuntimeCall r : f.runtimeCalls) {
        r.thread = threads[r.thread];
        r.op = uint32_t(m_runtimeCalls.size());
        m_runtimeCalls.push_back(r);
    }
    m_graphLaunches.insert(m_graphLaunches.end(), f.graphLaunches.begin(), f.graphLaunches.end());
    m_spanBegin = std::min(m_spanBegin, f.spanBegin);
    m_spanEnd = std::max(m_spanEnd, f.spanEnd);
}

uint32_t KinetoMerge::operatorById(int64_t externalId) const {
    if (externalId == kNoId)
        return kNoOp;
    auto it = std::lower_bound(m_cpuOps.begin(), m_cpuOps.end(), externalId,
                               [](const CpuOpRef& a, int64_t v) { return a.externalId < v; });
    if (it == m_cpuOps.end() || it->externalId != externalId)
        return kNoOp;
    return uint32_t(it - m_cpuOps.begin());
}

// Sorts m_cpuOps by External id and m_runtimeCalls by correlation, in place (a stable sort's
// buffer would be a second copy of the records), then: an activity whose External id names an
// operator keeps it; one whose correlation names a runtime call gets that call's operator. Sorts
// and one sweep per thread: O(n log n).
std::vector<uint32_t> KinetoMerge::resolveLaunchingOperators(std::vector<bool>* launchSeen) {
    // Of operators sharing an id (none in a real trace), the one an id names is the earliest; the
    // order depends on the records alone, so any cut of the file into folds gives the same.
    std::sort(m_cpuOps.begin(), m_cpuOps.end(), [](const CpuOpRef& a, const CpuOpRef& b) {
        return std::tie(a.externalId, a.ts, a.dur, a.thread, a.op, a.signature) <
               std::tie(b.externalId, b.ts, b.dur, b.thread, b.op, b.signature);
    });
    std::vector<uint32_t> launchedBy(m_gpu.size(), kNoOp);
    launchSeen->assign(m_gpu.size(), false);
    // Activities left to the correlation: (activity, runtime call).
    std::vector<std::pair<uint32_t, uint32_t>> viaCall;
    bool sortedCalls = false;
    for (size_t i = 0; i < m_gpu.size(); ++i) {
        launchedBy[i] = operatorById(m_gpuExternalId[i]);
        const int64_t corr = m_gpuCorrelation[i];
        if (launchedBy[i] != kNoOp || corr == kNoId || m_runtimeCalls.empty())
            continue;
        if (!sortedCalls) {
            // Of two calls with one correlation (a hostile or merged trace), the first in the
            // file (op holds the place until the calls are resolved).
            std::sort(m_runtimeCalls.begin(), m_runtimeCalls.end(),
                      [](const EventFold::RuntimeCall& a, const EventFold::RuntimeCall& b) {
                          return a.correlation != b.correlation ? a.correlation < b.correlation
                                                                : a.op < b.op;
                      });
            for (EventFold::RuntimeCall& r : m_runtimeCalls)
                r.op = kNoOp;
            sortedCalls = true;
        }
        auto it = std::lower_bound(
            m_runtimeCalls.begin(), m_runtimeCalls.end(), corr,
            [](const EventFold::RuntimeCall& r, int64_t v) { return r.correlation < v; });
        if (it != m_runtimeCalls.end() && it->correlation == corr) {
            viaCall.emplace_back(uint32_t(i), uint32_t(it - m_runtimeCalls.begin()));
            (*launchSeen)[i] = true;
        }
    }
    if (viaCall.empty())
        return launchedBy;

    constexpr uint32_t kQueued = kNoOp - 1;  // a call waiting for the sweep
    auto encloses = [](const CpuOpRef& o, uint32_t thread, double ts) {
        return o.dur >= 0 && o.thread == thread && o.ts <= ts && ts <= o.ts + o.dur;
    };
    // The calls to place by time: those whose own External id names no operator enclosing them
    // (old traces put the correlation there, which can equal an unrelated operator's id).
    std::vector<uint32_t> calls;
    for (const auto& [activity, call] : viaCall) {
        EventFold::RuntimeCall& r = m_runtimeCalls[call];
        if (r.op != kNoOp || r.thread == EventFold::kNoThread)
            continue;
        const uint32_t byId = operatorById(r.externalId);
        if (byId != kNoOp && encloses(m_cpuOps[byId], r.thread, r.ts)) {
            r.op = byId;
        } else {
            r.op = kQueued;  // once, however many activities it launched
            calls.push_back(call);
        }
    }
    std::sort(calls.begin(), calls.end(), [this](uint32_t a, uint32_t b) {
        const auto& x = m_runtimeCalls[a];
        const auto& y = m_runtimeCalls[b];
        return std::tie(x.thread, x.ts, a) < std::tie(y.thread, y.ts, b);
    });
    // Operators with an interval by thread, then start; of two that start together the longer
    // first, so that the inner one is on top of the stack.
    std::vector<uint32_t> byTime;
    for (size_t p = 0; p < m_cpuOps.size(); ++p) {
        if (m_cpuOps[p].dur >= 0)
            byTime.push_back(uint32_t(p));
    }
    std::sort(byTime.begin(), byTime.end(), [this](uint32_t a, uint32_t b) {
        const CpuOpRef& x = m_cpuOps[a];
        const CpuOpRef& y = m_cpuOps[b];
        if (x.thread != y.thread)
            return x.thread < y.thread;
        if (x.ts != y.ts)
            return x.ts < y.ts;
        if (x.dur != y.dur)
            return x.dur > y.dur;
        return a < b;
    });
    // Sweep each thread in time: the stack holds the operators begun so far that may still be
    // running; after those that ended before the call are popped from its top, the top is the
    // latest-begun operator still running at the call, the innermost one enclosing it. Every
    // operator is pushed and popped at most once.
    std::vector<uint32_t> stack;
    size_t next = 0;
    uint32_t thread = EventFold::kNoThread;
    auto end = [this](uint32_t p) { return m_cpuOps[p].ts + m_cpuOps[p].dur; };
    for (uint32_t call : calls) {
        EventFold::RuntimeCall& r = m_runtimeCalls[call];
        if (r.thread != thread) {
            thread = r.thread;
            stack.clear();
            while (next < byTime.size() && m_cpuOps[byTime[next]].thread < thread)
                ++next;
        }
        while (next < byTime.size() && m_cpuOps[byTime[next]].thread == thread &&
               m_cpuOps[byTime[next]].ts <= r.ts) {
            const double begin = m_cpuOps[byTime[next]].ts;
            while (!stack.empty() && end(stack.back()) < begin)
                stack.pop_back();
            stack.push_back(byTime[next++]);
        }
        while (!stack.empty() && end(stack.back()) < r.ts)
            stack.pop_back();
        r.op = stack.empty() ? kNoOp : stack.back();
    }
    for (const auto& [activity, call] : viaCall) {
        const uint32_t op = m_runtimeCalls[call].op;
        launchedBy[activity] = op == kQueued ? kNoOp : op;
    }
    return launchedBy;
}

void KinetoMerge::attributeByTwins(std::vector<uint32_t>& launchedBy,
                                   const std::vector<bool>& launchSeen,
                                   std::vector<bool>* byTwin) const {
    byTwin->assign(m_gpu.size(), false);
    // The lanes (device, stream) that hold an unlinked activity: only they are put in order
    // (most traces leave a few memsets unlinked among millions of linked activities; a twin
    // runs on the stream its missed repeat ran on).
    auto missed = [&](size_t i) { return launchedBy[i] == kNoOp && !launchSeen[i]; };
    auto lane = [this](size_t i) { return uint32_t(m_gpuLaneShape[i] >> 32); };
    std::set<uint32_t> lanes;
    size_t unlinked = 0, linked = 0;
    for (size_t i = 0; i < launchedBy.size(); ++i) {
        linked += launchedBy[i] != kNoOp;
        if (missed(i)) {
            ++unlinked;
            lanes.insert(lane(i));
        }
    }
    if (unlinked == 0 || linked == 0)
        return;  // nothing to link, or no linked part to learn from
    std::vector<uint32_t> order;
    for (size_t i = 0; i < m_gpu.size(); ++i)
        if (lanes.count(lane(i)))
            order.push_back(uint32_t(i));
    // In the order of its stream (m_gpu's begin times are still in file order).
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        return std::tuple(lane(a), m_gpu[a].begin, a) < std::tuple(lane(b), m_gpu[b].begin, b);
    });
    // An activity's launch (kernel, launch shape) and its neighbours' on its stream, mixed into
    // 64-bit keys, one per level of context: both neighbours, the one before, the one after,
    // none. (A collision could only give a missed launch of this trace another of its own calls.)
    auto launchAt = [&](uint32_t i) {
        return (uint64_t(m_gpu[i].tag) << 32) | uint32_t(m_gpuLaneShape[i]);
    };
    auto mix = [](uint64_t h, uint64_t v) {
        h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
        h ^= h >> 31;
        h *= 0xbf58476d1ce4e5b9ull;
        return h ^ (h >> 29);
    };
    constexpr uint64_t kNone = ~uint64_t(0);
    std::vector<uint32_t> position(m_gpu.size(), UINT32_MAX);  // in `order`
    for (size_t p = 0; p < order.size(); ++p)
        position[order[p]] = uint32_t(p);
    auto keyOf = [&](int level, uint32_t i) {
        const uint32_t p = position[i];
        uint64_t before = kNone, after = kNone;
        if (p != UINT32_MAX && level <= 1 && p > 0 && lane(order[p - 1]) == lane(i))
            before = launchAt(order[p - 1]);
        if (p != UINT32_MAX && (level == 0 || level == 2) && p + 1 < order.size() &&
            lane(order[p + 1]) == lane(i))
            after = launchAt(order[p + 1]);
        return mix(mix(mix(uint64_t(level), before), launchAt(i)), after);
    };
    auto callOf = [this](uint32_t op) {
        return (uint64_t(m_cpuOps[op].op) << 32) | m_cpuOps[op].signature;
    };
    // Level by level, one sort each (memory: 16 B per activity, whatever a trace holds): the
    // activities of one key are a group; its linked members teach, its missed members not yet
    // decided learn. The most specific key the linked part has seen decides: one call named,
    // linked to it; several, left unlinked (a less specific key would name them too); none seen,
    // the next level. Both neighbours first: a first step that zeroes a workspace has a memset
    // between two kernels its repeats lack. The last level, the kernel and shape alone, learns
    // from every stream.
    std::vector<bool> decided(m_gpu.size(), false);
    std::vector<std::pair<uint32_t, uint32_t>> links;  // (missed activity, its twin's call)
    std::vector<std::pair<uint64_t, uint32_t>> keyed;
    for (int level = 0; level < 4; ++level) {
        keyed.clear();
        auto add = [&](uint32_t i) {
            if (launchedBy[i] != kNoOp || (missed(i) && !decided[i]))
                keyed.emplace_back(keyOf(level, i), i);
        };
        if (level < 3) {
            for (uint32_t i : order)
                add(i);
        } else {
            for (size_t i = 0; i < m_gpu.size(); ++i)
                add(uint32_t(i));
        }
        std::sort(keyed.begin(), keyed.end());
        for (size_t g = 0; g < keyed.size();) {
            size_t end = g;
            uint32_t op = kNoOp;
            bool ambiguous = false;
            for (; end < keyed.size() && keyed[end].first == keyed[g].first; ++end) {
                const uint32_t i = keyed[end].second;
                if (launchedBy[i] == kNoOp)
                    continue;
                if (op == kNoOp)
                    op = launchedBy[i];
                else if (callOf(op) != callOf(launchedBy[i]))
                    ambiguous = true;
            }
            if (op != kNoOp) {
                for (size_t k = g; k < end; ++k) {
                    const uint32_t i = keyed[k].second;
                    if (launchedBy[i] != kNoOp)
                        continue;
                    decided[i] = true;
                    if (!ambiguous)
                        links.emplace_back(i, op);
                }
            }
            g = end;
        }
    }
    // Only now: a missed launch linked here teaches nothing (only what the trace linked does).
    for (const auto& [i, op] : links) {
        launchedBy[i] = op;
        (*byTwin)[i] = true;
    }
}

void KinetoMerge::addRankFacts(RankFacts& rank) const {
    std::vector<bool> collective(m_gpu.size(), false);
    for (const EventFold::CollectiveCall& c : m_collectiveCalls)
        collective[c.activity] = true;
    std::vector<Span> compute, communication;
    for (size_t i = 0; i < m_gpu.size(); ++i) {
        const Span s{m_gpu[i].begin + m_gpuBase, m_gpu[i].begin + m_gpuBase + m_gpuDur[i]};
        (collective[i] ? communication : compute).push_back(s);
    }
    rank.computeSpans = spanUnion(std::move(compute));
    rank.collectiveSpans = spanUnion(std::move(communication));

    // What the kernel does not say of itself, its launching record_param_comms may.
    std::vector<EventFold::CommsRecord> byId = m_commsRecords;
    std::stable_sort(byId.begin(), byId.end(),
                     [](const auto& a, const auto& b) { return a.externalId < b.externalId; });
    for (const EventFold::CollectiveCall& c : m_collectiveCalls) {
        const uint32_t i = c.activity;
        Collective out;
        out.kernel = m_kernels[m_gpu[i].tag].stats.name.substr(0, 512);
        out.op = collectiveOp(out.kernel);
        out.stream = c.stream >= 0 ? c.stream : -1;
        out.begin = m_gpu[i].begin + m_gpuBase;
        out.end = out.begin + m_gpuDur[i];
        EventFold::Comms comms = c.comms;
        const int64_t id = m_gpuExternalId[i];
        auto it = std::lower_bound(byId.begin(), byId.end(), id,
                                   [](const auto& r, int64_t v) { return r.externalId < v; });
        if (id != kNoId && it != byId.end() && it->externalId == id) {
            if (comms.group.empty())
                comms.group = it->comms.group;
            if (comms.bytes == kNoId)
                comms.bytes = it->comms.bytes;
            if (comms.seq == kNoId)
                comms.seq = it->comms.seq;
        }
        out.group = std::move(comms.group);
        out.bytes = comms.bytes == kNoId ? -1 : comms.bytes;
        out.seq = comms.seq == kNoId ? -1 : comms.seq;
        rank.collectives.push_back(std::move(out));
    }
    // Begin order (a trace lists events in no promised order); ties by end, stable.
    std::stable_sort(rank.collectives.begin(), rank.collectives.end(),
                     [](const Collective& x, const Collective& y) {
                         return x.begin != y.begin ? x.begin < y.begin : x.end < y.end;
                     });
}

Workload KinetoMerge::finish(std::vector<std::pair<int64_t, std::string>> devices,
                             std::string sha256, std::optional<RankFacts> rank) {
    Workload w;
    w.format = "kineto";
    w.sourceHash = std::move(sha256);
    for (const auto& [id, name] : devices) {
        if (id == m_firstGpuDevice)
            w.device = name;
    }
    if (w.device.empty() && !devices.empty())
        w.device = devices.front().second;
    if (rank) {
        addRankFacts(*rank);  // before the kernels' stats move into w, and m_gpu is sorted
        w.rank = std::move(rank);
    }

    std::sort(m_graphLaunches.begin(), m_graphLaunches.end());
    std::vector<bool> launchSeen, byTwin;
    std::vector<uint32_t> launchedBy = resolveLaunchingOperators(&launchSeen);
    attributeByTwins(launchedBy, launchSeen, &byTwin);
    std::vector<std::unordered_map<uint32_t, OperatorTime>> ops(m_kernels.size());
    // (operator, signature) -> time, per kernel: the shaped calls.
    std::vector<std::unordered_map<uint64_t, ShapedCall>> shaped(m_kernels.size());
    // (kernel, operator call) pairs already counted: a call that launched a kernel twice is one
    // operator call (ShapedCall::opCalls), which is what the work of a call multiplies. An
    // activity linked by its twin is a call of its own (its twin's call is another launch).
    std::set<std::pair<uint32_t, uint64_t>> countedCalls;
    for (size_t i = 0; i < m_gpu.size(); ++i) {
        const uint32_t kernel = m_gpu[i].tag;
        if (m_gpuCorrelation[i] != kNoId &&
            std::binary_search(m_graphLaunches.begin(), m_graphLaunches.end(),
                               m_gpuCorrelation[i])) {
            KernelStats& s = m_kernels[kernel].stats;
            ++s.graphCalls;
            s.graphUs += m_gpuDur[i];
        }
        if (launchedBy[i] == kNoOp)
            continue;
        if (byTwin[i])
            w.twinLinkedUs += m_gpuDur[i];
        const CpuOpRef* it = &m_cpuOps[launchedBy[i]];
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
            const uint64_t call = byTwin[i] ? (uint64_t(1) << 32) + i : launchedBy[i];
            if (countedCalls.emplace(kernel, call).second)
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
