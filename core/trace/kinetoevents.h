#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace reach {

class JsonScanner;

namespace kineto {

constexpr int64_t kNoId = std::numeric_limits<int64_t>::min();

// Ids and shapes are integers in every trace seen; a value out of range (or fractional garbage)
// must not become undefined behaviour in a cast.
inline int64_t toId(double v) {
    if (!(v >= -9.0e18 && v <= 9.0e18))
        return kNoId;
    return int64_t(v);
}

enum class Cat : uint8_t { Other, Kernel, Memcpy, Memset, CpuOp, Runtime };

struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
using NameIndex = std::unordered_map<std::string, uint32_t, StringHash, std::equal_to<>>;

// The index of s in names, added at the end when new.
inline uint32_t intern(std::string_view s, NameIndex& index, std::vector<std::string>& names) {
    auto it = index.find(s);
    if (it != index.end())
        return it->second;
    const uint32_t i = uint32_t(names.size());
    names.emplace_back(s);
    index.emplace(std::string(s), i);
    return i;
}

// What the events of one stretch of "traceEvents" leave behind: names by first appearance, one
// compact record per GPU activity and per operator call, in the order of the file. Nothing is
// summed here: KinetoMerge adds stretches in file order and does every sum, so a trace read in
// pieces on several threads gives the same bits as one read on one thread.
struct EventFold {
    struct Kernel {
        std::string rawName;  // as in the trace (demangled once, when merged)
        Cat cat = Cat::Kernel;
        std::vector<int> streams;  // distinct, ascending
        int64_t shapeAt = -1;      // activity of its first launch with a grid or block
        std::string grid, block;   // of that launch
    };
    struct Activity {
        uint32_t kernel = 0;
        // Where and how it ran, for finding its twin (KinetoMerge::attributeByTwins): the
        // device and stream it ran on, mixed into one value (in what was padding), and its
        // launch shape (grid and block, or a copy's bytes, mixed; 0 without any). 32 bits each:
        // the reader's memory per event is a budget (docs/limits.md).
        uint32_t lane = 0;
        double ts = 0;
        double dur = 0;
        int64_t externalId = kNoId;
        int64_t correlation = kNoId;
        uint32_t launchShape = 0;
    };
    // A collective's kernel (its name an NCCL/RCCL one) and a record_param_comms call: what
    // PyTorch records of the collective (process group, sequence number, bytes; kNoId or ""
    // when absent), for a distributed run's matching (KinetoOptions::rankFacts). Few per trace.
    struct Comms {
        int64_t seq = kNoId;
        int64_t bytes = kNoId;
        std::string group;
    };
    struct CollectiveCall {
        uint32_t activity = 0;  // its place in `activities`
        int64_t stream = kNoId;
        Comms comms;
    };
    struct CommsRecord {
        int64_t externalId = kNoId;
        Comms comms;
    };
    static constexpr uint32_t kNoSignature = UINT32_MAX;
    static constexpr uint32_t kNoThread = UINT32_MAX;
    struct CpuOp {
        int64_t externalId = kNoId;
        double ts = 0;
        // Rounded up to a float (an interval never shrinks; 6e-8 of it at most is added): a
        // third of a trace's events are operators, and this is what enclosing a launch needs.
        // -1: no interval (not a complete event): the operator is found by its id only.
        float dur = -1;
        uint32_t op = 0;
        uint32_t signature = kNoSignature;  // when the trace recorded shapes
        uint32_t thread = kNoThread;        // into threads
    };
    // A runtime or driver call that launches GPU work (kernel, copy, set, graph): an activity
    // with no operator id of its own is linked through the call its correlation names.
    struct RuntimeCall {
        int64_t correlation = kNoId;
        int64_t externalId = kNoId;
        double ts = 0;
        uint32_t thread = kNoThread;
        uint32_t op = 0;  // KinetoMerge's: its place in the file, then its operator
    };
    // Kept per operator call and per launch call of the whole trace (docs/limits.md).
    static_assert(sizeof(CpuOp) == 32 && sizeof(RuntimeCall) == 32);
    // (pid, tid) of a host event: operators enclose a launch only on its own thread.
    using Thread = std::pair<int64_t, int64_t>;
    struct ThreadHash {
        size_t operator()(const Thread& t) const {
            return std::hash<uint64_t>{}(uint64_t(t.first) * 1000003u ^ uint64_t(t.second));
        }
    };

    std::vector<Kernel> kernels;
    NameIndex kernelIndex;  // raw name -> kernels
    std::vector<Activity> activities;
    int64_t firstDevice = kNoId;  // of the first GPU activity that names one
    std::vector<std::string> ops;
    NameIndex opIndex;
    std::vector<std::string> signatures;
    NameIndex signatureIndex;
    std::vector<CpuOp> cpuOps;
    std::vector<RuntimeCall> runtimeCalls;
    std::vector<Thread> threads;  // by first appearance
    std::unordered_map<Thread, uint32_t, ThreadHash> threadIndex;
    std::vector<int64_t> graphLaunches;  // correlation ids of CUDA graph launch calls
    std::vector<CollectiveCall> collectiveCalls;
    std::vector<CommsRecord> commsRecords;
    double spanBegin = std::numeric_limits<double>::infinity();
    double spanEnd = -std::numeric_limits<double>::infinity();
    uint64_t events = 0;

    void clear() { *this = EventFold(); }
};

// Reads one event object at a time from a scanner into a fold: of every event only `ph, cat,
// name, ts, dur, pid, tid` and of its args `External id, correlation, stream, device, grid,
// block` (and of an operator call with record_shapes its input shapes, types and scalars; of a
// collective's kernel or record_param_comms call its process group, sequence and size).
class EventReader {
public:
    // `collectives`: also fold collectives and record_param_comms calls (KinetoOptions::rankFacts;
    // an ordinary reading keeps no record of them: the per-event budget, docs/limits.md).
    EventReader(JsonScanner& scan, EventFold& fold, bool collectives = false)
        : m_scan(scan), m_fold(fold), m_collectives(collectives) {}

    // The event at the cursor (an InputError at its byte when it is not an object).
    void readEvent();

private:
    struct Event;
    void parseArgs(Event& ev);
    void readShape(int (&out)[3], bool& has);
    double timeField(std::string_view key, bool duration);
    void appendCompact(std::string& out, int depth);
    std::string_view stringField(std::string_view key);
    double numberField(std::string_view key);
    void fold(const Event& ev);
    static EventFold::Comms commsOf(const Event& ev);
    uint32_t kernelIndex(Cat cat);  // of the current name
    uint32_t threadIndex(const Event& ev);

    JsonScanner& m_scan;
    EventFold& m_fold;
    const bool m_collectives;
    std::string m_name;         // the current event's name (capacity reused across events)
    uint32_t m_lastThread = 0;  // host events come in runs of one thread
};

}  // namespace kineto
}  // namespace reach
