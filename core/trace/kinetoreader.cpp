#include "core/trace/kinetoreader.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <set>
#include <tuple>
#include <unordered_map>

#include "core/base/demangle.h"
#include "core/base/inputerror.h"
#include "core/trace/bytesource.h"
#include "core/trace/gpuintervals.h"
#include "core/trace/jsonscanner.h"

namespace reach {

namespace {

struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
using NameIndex = std::unordered_map<std::string, uint32_t, StringHash, std::equal_to<>>;

// Equality with a literal, inlined to a size check and a fixed-size compare: the reader makes a
// few of these per key of every event, and the out-of-line std::string_view::compare GCC emits
// for `==` was a tenth of the reader's instructions.
template <size_t N>
inline bool is(std::string_view s, const char (&lit)[N]) {
    return s.size() == N - 1 && std::memcmp(s.data(), lit, N - 1) == 0;
}
template <size_t N>
inline bool startsWith(std::string_view s, const char (&lit)[N]) {
    return s.size() >= N - 1 && std::memcmp(s.data(), lit, N - 1) == 0;
}

enum class Cat : uint8_t { Other, Kernel, Memcpy, Memset, CpuOp, Runtime };

Cat catOf(std::string_view c) {
    if (is(c, "kernel"))
        return Cat::Kernel;
    if (is(c, "cpu_op"))
        return Cat::CpuOp;
    if (is(c, "gpu_memcpy"))
        return Cat::Memcpy;
    if (is(c, "gpu_memset"))
        return Cat::Memset;
    if (is(c, "cuda_runtime") || is(c, "cuda_driver"))
        return Cat::Runtime;
    return Cat::Other;
}

// A CUDA graph replay: one launch call on the CPU, many kernels on the GPU, all correlated to it.
bool isGraphLaunch(std::string_view name) {
    return startsWith(name, "cudaGraphLaunch") || startsWith(name, "cuGraphLaunch") ||
           startsWith(name, "hipGraphLaunch");  // ROCm traces keep the cuda_runtime category
}

// Shapes beyond this are not kept (an optimizer's _foreach op over hundreds of tensors): such a
// call gets no estimate rather than megabytes of signature.
constexpr size_t kMaxSignatureBytes = 16 * 1024;
constexpr int kMaxSignatureDepth = 8;

constexpr int64_t kNoId = std::numeric_limits<int64_t>::min();

// Ids and shapes are integers in every trace seen; a value out of range (or fractional garbage)
// must not become undefined behaviour in a cast.
int64_t toId(double v) {
    if (!(v >= -9.0e18 && v <= 9.0e18))
        return kNoId;
    return int64_t(v);
}

int toDim(double v) {
    if (!(v >= 0 && v <= 2147483647.0))
        return 0;
    return int(v);
}

// Timestamps and durations are microseconds. Past these bounds a value is not a time but a
// corrupt or hostile file (1e308 + a duration is inf; a negative duration is negative GPU time),
// and the sums Reach forms from them stay finite: 1e18 us is 31,000 years since the epoch, 1e13 us
// (116 days) is longer than any profile.
constexpr double kMaxAbsTimestampUs = 1e18;
constexpr double kMaxDurationUs = 1e13;

// The fields of one event the reader uses (its name is copied into the parser's buffer: no view
// into the scanner's window has to outlive the next token, so nothing pins the window).
struct Event {
    bool hasName = false;
    bool complete = false;  // ph "X"
    Cat cat = Cat::Other;
    bool catKnown = false;
    bool phKnown = false;
    bool hasTs = false;
    bool hasDur = false;
    double ts = 0;
    double dur = 0;
    int64_t externalId = kNoId;
    int64_t correlation = kNoId;
    int64_t stream = kNoId;
    int64_t tid = kNoId;
    int64_t device = kNoId;
    int grid[3] = {0, 0, 0};
    int block[3] = {0, 0, 0};
    bool hasGrid = false;
    bool hasBlock = false;
    std::string signature;  // cpu_op with record_shapes: compact JSON of its input shapes
};

struct KernelAcc {
    KernelStats stats;
    bool haveLaunchShape = false;
};

class KinetoParser {
public:
    KinetoParser(ByteSource& source, const ProgressFn& progress, std::stop_token stop)
        : m_source(source), m_scan(source), m_progress(progress), m_stop(stop) {}

    Workload run();

private:
    void parseTopLevel();
    void parseEvents();
    void parseEvent();
    void parseArgs(Event& ev);
    void parseDeviceProperties();
    void readShape(int (&out)[3], bool& has);
    double timeField(std::string_view key, bool duration);
    void appendCompact(std::string& out, int depth);
    std::string_view stringField(std::string_view key);
    double numberField(std::string_view key);
    void fold(const Event& ev);
    uint32_t kernelIndex(std::string_view rawName, Cat cat);
    Workload finish();

    ByteSource& m_source;
    JsonScanner m_scan;
    const ProgressFn& m_progress;
    std::stop_token m_stop;

    bool m_sawEvents = false;
    std::vector<std::pair<int64_t, std::string>> m_devices;  // deviceProperties: id, name
    int64_t m_firstGpuDevice = kNoId;

    NameIndex m_rawKernelIndex;  // name as in the trace -> kernel
    NameIndex m_kernelIndex;     // demangled name -> kernel
    std::vector<KernelAcc> m_kernels;
    NameIndex m_opIndex;
    std::vector<std::string> m_opNames;

    std::vector<GpuInterval> m_gpu;  // every GPU activity (unionLength sorts it: use last)
    double m_gpuBase = 0;
    std::vector<int64_t> m_gpuExternalId;  // parallel to m_gpu while it is unsorted
    std::vector<double> m_gpuDur;
    struct CpuOpRef {
        int64_t externalId;
        uint32_t op;
        uint32_t signature;  // kNoSignature when the trace recorded no shapes
    };
    static constexpr uint32_t kNoSignature = UINT32_MAX;
    std::vector<CpuOpRef> m_cpuOps;
    NameIndex m_sigIndex;
    std::vector<std::string> m_sigs;
    std::vector<int64_t> m_gpuCorrelation;  // parallel to m_gpu while it is unsorted
    std::vector<int64_t> m_graphLaunches;   // correlation ids of cudaGraphLaunch calls
    double m_spanBegin = std::numeric_limits<double>::infinity();
    double m_spanEnd = -std::numeric_limits<double>::infinity();
    uint64_t m_eventsSeen = 0;
    std::string m_eventName;  // the current event's name (capacity reused across events)
};

std::string_view KinetoParser::stringField(std::string_view key) {
    uint64_t at = m_scan.offset();
    JsonScanner::Kind k = m_scan.peek();
    if (k != JsonScanner::Kind::String) {
        m_scan.failAt(at, key, std::string("expected a string, found ") + JsonScanner::kindName(k));
    }
    return m_scan.string();
}

double KinetoParser::numberField(std::string_view key) {
    uint64_t at = m_scan.offset();
    JsonScanner::Kind k = m_scan.peek();
    if (k != JsonScanner::Kind::Number) {
        m_scan.failAt(at, key, std::string("expected a number, found ") + JsonScanner::kindName(k));
    }
    return m_scan.number();
}

std::string shortNumber(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

double KinetoParser::timeField(std::string_view key, bool duration) {
    const uint64_t at = m_scan.offset();
    const double v = numberField(key);
    if (duration && !(v >= 0 && v <= kMaxDurationUs)) {
        m_scan.failAt(at, key,
                      "expected a duration in microseconds from 0 to 1e13, got " + shortNumber(v));
    }
    if (!duration && !(std::fabs(v) <= kMaxAbsTimestampUs)) {
        m_scan.failAt(at, key,
                      "expected a timestamp in microseconds within +-1e18, got " + shortNumber(v));
    }
    return v;
}

void KinetoParser::readShape(int (&out)[3], bool& has) {
    if (m_scan.peek() != JsonScanner::Kind::Array) {
        m_scan.skipValue();
        return;
    }
    m_scan.beginArray();
    int n = 0;
    while (m_scan.nextElement()) {
        if (m_scan.peek() == JsonScanner::Kind::Number && n < 3) {
            out[n++] = toDim(m_scan.number());
        } else {
            m_scan.skipValue();
        }
    }
    has = n > 0;
}

void KinetoParser::parseArgs(Event& ev) {
    uint64_t at = m_scan.offset();
    JsonScanner::Kind k = m_scan.peek();
    if (k != JsonScanner::Kind::Object) {
        m_scan.failAt(at, "args",
                      std::string("expected an object, found ") + JsonScanner::kindName(k));
    }
    m_scan.beginObject();
    std::string_view key;
    auto intValue = [&](int64_t& out) {
        if (m_scan.peek() == JsonScanner::Kind::Number) {
            out = toId(m_scan.number());
        } else {
            m_scan
                .skipValue();  // e.g. a string id in a foreign trace: no link rather than an error
        }
    };
    const bool op = ev.catKnown && ev.cat == Cat::CpuOp;
    std::string dims, types, concrete, strides;
    while (m_scan.nextKey(key)) {
        if (is(key, "External id")) {
            intValue(ev.externalId);
        } else if (is(key, "correlation")) {
            intValue(ev.correlation);
        } else if (op && (is(key, "Input Dims") || is(key, "Input type") ||
                          is(key, "Concrete Inputs") || is(key, "Input Strides"))) {
            // record_shapes=True: what the operator was given, for the headroom estimate. The
            // strides say when an input is an expanded view (stride 0) read only once.
            std::string& out = is(key, "Input Dims")      ? dims
                               : is(key, "Input type")    ? types
                               : is(key, "Input Strides") ? strides
                                                          : concrete;
            appendCompact(out, 0);
        } else if (is(key, "stream")) {
            intValue(ev.stream);
        } else if (is(key, "device")) {
            intValue(ev.device);
        } else if (is(key, "grid")) {
            readShape(ev.grid, ev.hasGrid);
        } else if (is(key, "block")) {
            readShape(ev.block, ev.hasBlock);
        } else {
            m_scan.skipValue();
        }
    }
    if (op && !dims.empty()) {
        ev.signature = "{\"dims\":" + dims + ",\"types\":" + (types.empty() ? "[]" : types) +
                       ",\"concrete\":" + (concrete.empty() ? "[]" : concrete) +
                       (strides.empty() ? "" : ",\"strides\":" + strides) + "}";
        if (ev.signature.size() > kMaxSignatureBytes)
            ev.signature.clear();
    }
}

// Compact JSON of the value at the cursor (shapes, type names, concrete scalars), bounded in
// depth and size: what is past the bounds is skipped and the signature dropped by the caller.
void KinetoParser::appendCompact(std::string& out, int depth) {
    const JsonScanner::Kind k = m_scan.peek();
    if (out.size() > kMaxSignatureBytes || depth > kMaxSignatureDepth) {
        m_scan.skipValue();
        // Marks it too long, once: every later element sees the size and is only skipped (an
        // append per element made a 200 KB shape list cost gigabytes).
        if (out.size() <= kMaxSignatureBytes)
            out.append(kMaxSignatureBytes + 1 - out.size(), ' ');
        return;
    }
    switch (k) {
        case JsonScanner::Kind::Array: {
            m_scan.beginArray();
            out += '[';
            bool first = true;
            while (m_scan.nextElement()) {
                if (!first)
                    out += ',';
                first = false;
                appendCompact(out, depth + 1);
            }
            out += ']';
            return;
        }
        case JsonScanner::Kind::String: {
            out += '"';
            for (char c : m_scan.string()) {
                if (c == '"' || c == '\\')
                    out += '\\';
                if (static_cast<unsigned char>(c) >= 0x20)
                    out += c;
            }
            out += '"';
            return;
        }
        case JsonScanner::Kind::Number: {
            const double v = m_scan.number();
            char buf[32];
            // The range first: casting a double past int64's range is undefined (fuzzing found
            // 4e65 in a shape list).
            if (v > -9.0e15 && v < 9.0e15 && v == double(int64_t(v)))
                std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
            else
                std::snprintf(buf, sizeof buf, "%.17g", v);
            out += buf;
            return;
        }
        default:
            m_scan.skipValue();
            out += "null";
            return;
    }
}

void KinetoParser::parseEvent() {
    uint64_t at = m_scan.offset();
    JsonScanner::Kind k = m_scan.peek();
    if (k != JsonScanner::Kind::Object) {
        m_scan.failAt(at, "traceEvents",
                      std::string("expected an event object, found ") + JsonScanner::kindName(k));
    }
    m_scan.beginObject();
    Event ev;
    std::string_view key;
    while (m_scan.nextKey(key)) {
        // A flow or instant event ("ph" s/f/i/M) of no GPU or operator category holds nothing
        // the reader uses: skip the rest of it unparsed (flows are a third of a trace's events).
        if (ev.catKnown && ev.cat == Cat::Other && ev.phKnown && !ev.complete) {
            m_scan.skipValue();
            m_scan.skipRest();
            break;
        }
        // Once "cat" says the event is neither GPU activity nor an operator (flows, runtime
        // calls, Python frames: most of a trace), only ts/dur (for the span) are read; of a
        // runtime call only its name, and the args of a CUDA graph launch (its correlation).
        bool other = ev.catKnown && ev.cat == Cat::Other;
        if (ev.catKnown && ev.cat == Cat::Runtime && is(key, "args")) {
            // m_eventName holds an earlier event's name until this one's "name" is read.
            other = ev.hasName && !m_eventName.empty() && !isGraphLaunch(m_eventName);
        }
        switch (key.size()) {
            case 2:
                if (is(key, "ph")) {
                    ev.complete = is(stringField(key), "X");
                    ev.phKnown = true;
                    continue;
                }
                if (is(key, "ts")) {
                    ev.ts = timeField(key, false);
                    ev.hasTs = true;
                    continue;
                }
                break;
            case 3:
                if (is(key, "cat")) {
                    ev.cat = catOf(stringField(key));
                    ev.catKnown = true;
                    continue;
                }
                if (is(key, "dur")) {
                    ev.dur = timeField(key, true);
                    ev.hasDur = true;
                    continue;
                }
                if (is(key, "tid") && !other) {
                    if (m_scan.peek() == JsonScanner::Kind::Number) {
                        ev.tid = toId(m_scan.number());
                        continue;
                    }
                }
                break;
            case 4:
                if (is(key, "name") && !other) {
                    m_eventName.assign(stringField(key));
                    ev.hasName = true;
                    continue;
                }
                if (is(key, "args") && !other) {
                    parseArgs(ev);
                    continue;
                }
                break;
            default:
                break;
        }
        m_scan.skipValue();
    }
    if (!ev.hasName)
        m_eventName.clear();
    fold(ev);
}

uint32_t KinetoParser::kernelIndex(std::string_view rawName, Cat cat) {
    auto it = m_rawKernelIndex.find(rawName);
    if (it != m_rawKernelIndex.end())
        return it->second;
    std::string name = demangle(rawName);
    uint32_t idx;
    auto jt = m_kernelIndex.find(name);
    if (jt != m_kernelIndex.end()) {
        idx = jt->second;
    } else {
        idx = uint32_t(m_kernels.size());
        KernelAcc acc;
        acc.stats.name = name;
        acc.stats.kind = cat == Cat::Memcpy   ? ActivityKind::Memcpy
                         : cat == Cat::Memset ? ActivityKind::Memset
                                              : ActivityKind::Kernel;
        acc.stats.minUs = std::numeric_limits<double>::infinity();
        m_kernels.push_back(std::move(acc));
        m_kernelIndex.emplace(std::move(name), idx);
    }
    m_rawKernelIndex.emplace(std::string(rawName), idx);
    return idx;
}

void KinetoParser::fold(const Event& ev) {
    bool complete = ev.complete && ev.hasTs && ev.hasDur;
    if (complete) {
        m_spanBegin = std::min(m_spanBegin, ev.ts);
        m_spanEnd = std::max(m_spanEnd, ev.ts + ev.dur);
    }
    switch (ev.cat) {
        case Cat::Kernel:
        case Cat::Memcpy:
        case Cat::Memset: {
            if (!complete)
                return;  // flows and instants on GPU rows carry no GPU time
            uint32_t idx = kernelIndex(m_eventName, ev.cat);
            KernelAcc& acc = m_kernels[idx];
            KernelStats& s = acc.stats;
            ++s.calls;
            s.totalUs += ev.dur;
            s.minUs = std::min(s.minUs, ev.dur);
            s.maxUs = std::max(s.maxUs, ev.dur);
            int64_t stream = ev.stream != kNoId ? ev.stream : ev.tid;
            if (stream != kNoId &&
                std::find(s.streams.begin(), s.streams.end(), int(stream)) == s.streams.end()) {
                s.streams.insert(std::upper_bound(s.streams.begin(), s.streams.end(), int(stream)),
                                 int(stream));
            }
            if (!acc.haveLaunchShape && (ev.hasGrid || ev.hasBlock)) {
                acc.haveLaunchShape = true;
                auto fmt = [](const int(&v)[3]) {
                    return std::to_string(v[0]) + "," + std::to_string(v[1]) + "," +
                           std::to_string(v[2]);
                };
                if (ev.hasGrid)
                    s.grid = fmt(ev.grid);
                if (ev.hasBlock)
                    s.block = fmt(ev.block);
            }
            if (m_firstGpuDevice == kNoId)
                m_firstGpuDevice = ev.device;
            // Intervals relative to the first GPU activity: absolute microsecond timestamps
            // (~5e12) leave too few digits of a double for ns-exact interval arithmetic.
            if (m_gpu.empty())
                m_gpuBase = ev.ts;
            double begin = ev.ts - m_gpuBase;
            m_gpu.push_back({begin, begin + ev.dur, idx});
            m_gpuExternalId.push_back(ev.externalId);
            m_gpuCorrelation.push_back(ev.correlation);
            m_gpuDur.push_back(ev.dur);
            return;
        }
        case Cat::Runtime:
            if (ev.correlation != kNoId && isGraphLaunch(m_eventName))
                m_graphLaunches.push_back(ev.correlation);
            return;
        case Cat::CpuOp: {
            if (ev.externalId == kNoId)
                return;
            std::string_view name = m_eventName;
            auto it = m_opIndex.find(name);
            uint32_t op;
            if (it == m_opIndex.end()) {
                op = uint32_t(m_opNames.size());
                m_opNames.emplace_back(name);
                m_opIndex.emplace(std::string(name), op);
            } else {
                op = it->second;
            }
            uint32_t sig = kNoSignature;
            if (!ev.signature.empty()) {
                auto s = m_sigIndex.find(ev.signature);
                if (s == m_sigIndex.end()) {
                    sig = uint32_t(m_sigs.size());
                    m_sigs.push_back(ev.signature);
                    m_sigIndex.emplace(ev.signature, sig);
                } else {
                    sig = s->second;
                }
            }
            m_cpuOps.push_back({ev.externalId, op, sig});
            return;
        }
        case Cat::Other:
            return;
    }
}

void KinetoParser::parseEvents() {
    m_sawEvents = true;
    m_scan.beginArray();
    while (m_scan.nextElement()) {
        parseEvent();
        if ((++m_eventsSeen & 0xFFF) == 0) {
            if (m_stop.stop_requested())
                throw Cancelled{};
            if (m_progress && m_source.fileSize() > 0) {
                m_progress(double(m_source.fileBytesRead()) / double(m_source.fileSize()));
            }
        }
    }
}

void KinetoParser::parseDeviceProperties() {
    if (m_scan.peek() != JsonScanner::Kind::Array) {
        m_scan.skipValue();
        return;
    }
    m_scan.beginArray();
    while (m_scan.nextElement()) {
        if (m_scan.peek() != JsonScanner::Kind::Object) {
            m_scan.skipValue();
            continue;
        }
        m_scan.beginObject();
        int64_t id = kNoId;
        std::string name;
        std::string_view key;
        while (m_scan.nextKey(key)) {
            if (key == "id" && m_scan.peek() == JsonScanner::Kind::Number) {
                id = toId(m_scan.number());
            } else if (key == "name" && m_scan.peek() == JsonScanner::Kind::String) {
                name = std::string(m_scan.string());
            } else {
                m_scan.skipValue();
            }
        }
        if (!name.empty())
            m_devices.emplace_back(id, std::move(name));
    }
}

void KinetoParser::parseTopLevel() {
    JsonScanner::Kind k = m_scan.peek();
    if (k == JsonScanner::Kind::Array) {
        parseEvents();  // the Chrome trace format also allows a bare list of events
    } else {
        if (k != JsonScanner::Kind::Object) {
            m_scan.fail(std::string("expected a JSON object with \"traceEvents\", found ") +
                        JsonScanner::kindName(k));
        }
        m_scan.beginObject();
        std::string_view key;
        while (m_scan.nextKey(key)) {
            if (key == "traceEvents") {
                uint64_t at = m_scan.offset();
                JsonScanner::Kind v = m_scan.peek();
                if (v != JsonScanner::Kind::Array) {
                    m_scan.failAt(at, "traceEvents",
                                  std::string("expected a list of events, found ") +
                                      JsonScanner::kindName(v));
                }
                parseEvents();
            } else if (key == "deviceProperties") {
                parseDeviceProperties();
            } else {
                m_scan.skipValue();
            }
        }
    }
    m_scan.expectEnd();
    if (!m_sawEvents) {
        throw InputError(m_source.path(), "key \"traceEvents\"",
                         "expected a top-level \"traceEvents\" list; this JSON has none (not a "
                         "PyTorch profiler trace?)");
    }
}

Workload KinetoParser::finish() {
    Workload w;
    w.format = "kineto";
    w.sourceHash = m_source.sha256();
    for (const auto& [id, name] : m_devices) {
        if (id == m_firstGpuDevice)
            w.device = name;
    }
    if (w.device.empty() && !m_devices.empty())
        w.device = m_devices.front().second;

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
        if (it->signature != kNoSignature) {
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

Workload KinetoParser::run() {
    parseTopLevel();
    // Drain to the end so the file hash covers every byte (the stream may hold trailing members).
    while (!m_source.next().empty()) {
    }
    if (m_progress)
        m_progress(1.0);
    return finish();
}

}  // namespace

Workload readKineto(ByteSource& source, const ProgressFn& progress, std::stop_token stop) {
    KinetoParser parser(source, progress, stop);
    return parser.run();
}

}  // namespace reach
