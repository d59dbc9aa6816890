#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/base/workload.h"
#include "core/trace/gpuintervals.h"
#include "core/trace/kinetoevents.h"

namespace reach::kineto {

// Adds the folds of a trace's events in the order of the file and makes the Workload: per-name
// aggregates (names demangled once), busy time and span, and the links of GPU activities to
// their launching operators (resolved at the end: events come in any order).
//
// An activity's operator is the cpu_op its `External id` names; failing that, the one its
// `correlation` leads to, as the profiler's own tools (HTA, TraceLens) link: the runtime call
// with that correlation (the launch; for a kernel replayed from a CUDA graph, the graph launch),
// then the cpu_op the call's own External id names when that operator encloses the call on its
// thread, else the innermost cpu_op enclosing the call on its thread (pid, tid).
//
// An activity left with no operator whose launch call is missing too, in a trace that links
// others (its launch fell outside the profiler's CPU window: the step before it, recorded by
// another tool), gets the operator call of its twin: the linked activities with the same kernel
// and launch shape and the same neighbours on its stream name exactly one operator and input
// shapes. The most specific context the linked part has seen decides (both neighbours, the one
// before, the one after, none); two calls named leave it unlinked, as does an activity whose
// launch call is there, outside every operator (its launch was seen). Workload::twinLinkedUs
// says how much time was linked that way.
class KinetoMerge {
public:
    void add(EventFold&& fold);
    // `rank`: what the trace's distributedInfo said, when the reading asked for the rank's facts
    // (KinetoOptions::rankFacts); the merge adds its spans and collectives (Workload::rank).
    Workload finish(std::vector<std::pair<int64_t, std::string>> devices, std::string sha256,
                    std::optional<RankFacts> rank = std::nullopt);

private:
    struct KernelAcc {
        KernelStats stats;
        bool haveLaunchShape = false;
    };
    using CpuOpRef = EventFold::CpuOp;  // op, signature and thread are this merge's

    // Position in m_cpuOps (sorted by External id) of each activity's operator, or kNoOp.
    static constexpr uint32_t kNoOp = UINT32_MAX;
    // *launchSeen: whether the trace has the runtime call that launched each activity.
    std::vector<uint32_t> resolveLaunchingOperators(std::vector<bool>* launchSeen);
    // Links unlinked activities whose launch the trace missed to a twin's operator (see above);
    // marks them in *byTwin. One whose launch call is there, outside every operator, stays
    // unlinked: nothing launched it from an operator.
    void attributeByTwins(std::vector<uint32_t>& launchedBy, const std::vector<bool>& launchSeen,
                          std::vector<bool>* byTwin) const;
    uint32_t operatorById(int64_t externalId) const;
    // The spans and collectives of Workload::rank, from m_gpu before unionLength sorts it.
    void addRankFacts(RankFacts& rank) const;

    NameIndex m_rawKernelIndex;  // name as in the trace -> kernel
    NameIndex m_kernelIndex;     // demangled name -> kernel
    std::vector<KernelAcc> m_kernels;
    NameIndex m_opIndex;
    std::vector<std::string> m_opNames;
    NameIndex m_sigIndex;
    std::vector<std::string> m_sigs;

    std::vector<GpuInterval> m_gpu;  // every GPU activity (unionLength sorts it: use last)
    double m_gpuBase = 0;
    std::vector<int64_t> m_gpuExternalId;   // parallel to m_gpu while it is unsorted
    std::vector<int64_t> m_gpuCorrelation;  // parallel to m_gpu while it is unsorted
    std::vector<double> m_gpuDur;
    // Parallel to m_gpu while it is unsorted: each activity's lane and launch shape (lane in the
    // high 32 bits), for attributeByTwins.
    std::vector<uint64_t> m_gpuLaneShape;
    std::vector<CpuOpRef> m_cpuOps;
    std::vector<EventFold::RuntimeCall> m_runtimeCalls;
    std::unordered_map<EventFold::Thread, uint32_t, EventFold::ThreadHash> m_threadIndex;
    std::vector<int64_t> m_graphLaunches;
    std::vector<EventFold::CollectiveCall> m_collectiveCalls;  // activity: its place in m_gpu
    std::vector<EventFold::CommsRecord> m_commsRecords;
    int64_t m_firstGpuDevice = kNoId;
    double m_spanBegin = std::numeric_limits<double>::infinity();
    double m_spanEnd = -std::numeric_limits<double>::infinity();
};

}  // namespace reach::kineto
