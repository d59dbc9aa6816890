#include "core/trace/kinetoevents.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "core/base/rankfacts.h"
#include "core/trace/jsonscanner.h"

namespace reach::kineto {

namespace {

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

// A host call that puts work on the GPU, which an activity's correlation can name: kernel
// launches (cudaLaunchKernel, cudaLaunchKernelExC, cuLaunchKernel(Ex), hipLaunchKernel,
// hip(Ext)ModuleLaunchKernel, cooperative launches), graph launches, copies and sets (sync or
// async, any API). Attribute queries, stream and event calls, errors (two fifths of the runtime
// calls of the shipped traces) are not kept.
bool launchesGpuWork(std::string_view name) {
    return name.find("Launch") != std::string_view::npos ||
           name.find("Memcpy") != std::string_view::npos ||
           name.find("Memset") != std::string_view::npos;
}

// Shapes beyond this are not kept (an optimizer's _foreach op over hundreds of tensors): such a
// call gets no estimate rather than megabytes of signature.
constexpr size_t kMaxSignatureBytes = 16 * 1024;
// A process group's name or a dtype longer than this is cut (a hostile trace's megabyte string).
constexpr size_t kMaxGroupBytes = 128;
constexpr int kMaxSignatureDepth = 8;

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

std::string shortNumber(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

}  // namespace

// The fields of one event the reader uses (its name is copied into the reader's buffer: no view
// into the scanner's window has to outlive the next token, so nothing pins the window).
struct EventReader::Event {
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
    int64_t pid = kNoId;
    int64_t tid = kNoId;
    int64_t device = kNoId;
    int64_t bytes = kNoId;  // a copy's or memset's size: part of its launch shape
    int grid[3] = {0, 0, 0};
    int block[3] = {0, 0, 0};
    bool hasGrid = false;
    bool hasBlock = false;
    std::string signature;  // cpu_op with record_shapes: compact JSON of its input shapes
    // A collective's metadata (PyTorch 2.x writes it on the kernel and on record_param_comms).
    int64_t seq = kNoId;
    int64_t elements = kNoId;
    std::string group, dtype;
};

std::string_view EventReader::stringField(std::string_view key) {
    uint64_t at = m_scan.offset();
    JsonScanner::Kind k = m_scan.peek();
    if (k != JsonScanner::Kind::String) {
        m_scan.failAt(at, key, std::string("expected a string, found ") + JsonScanner::kindName(k));
    }
    return m_scan.string();
}

double EventReader::numberField(std::string_view key) {
    uint64_t at = m_scan.offset();
    JsonScanner::Kind k = m_scan.peek();
    if (k != JsonScanner::Kind::Number) {
        m_scan.failAt(at, key, std::string("expected a number, found ") + JsonScanner::kindName(k));
    }
    return m_scan.number();
}

double EventReader::timeField(std::string_view key, bool duration) {
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

void EventReader::readShape(int (&out)[3], bool& has) {
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

void EventReader::parseArgs(Event& ev) {
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
    // Shapes are kept while the category is not yet known too: JSON's keys come in any order,
    // and a trace written with sorted keys ("args" before "cat") lost every operator's shapes.
    // fold() uses a signature only for an operator call.
    const bool op = !ev.catKnown || ev.cat == Cat::CpuOp;
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
        } else if (is(key, "bytes")) {
            intValue(ev.bytes);
        } else if (is(key, "Seq") || is(key, "seq")) {
            intValue(ev.seq);
        } else if (is(key, "In msg nelems")) {
            intValue(ev.elements);
        } else if (is(key, "Process Group Name") || is(key, "dtype")) {
            if (m_scan.peek() == JsonScanner::Kind::String)
                (is(key, "dtype") ? ev.dtype : ev.group) =
                    std::string(m_scan.string().substr(0, kMaxGroupBytes));
            else
                m_scan.skipValue();
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
void EventReader::appendCompact(std::string& out, int depth) {
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

void EventReader::readEvent() {
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
        // Once "cat" says the event is neither GPU activity nor an operator nor a runtime call
        // (flows, Python frames: most of a trace), only ts/dur (for the span) are read. Of a
        // runtime call, the args of one that launches GPU work (its correlation and id).
        bool other = ev.catKnown && ev.cat == Cat::Other;
        if (ev.catKnown && ev.cat == Cat::Runtime && is(key, "args")) {
            // m_name holds an earlier event's name until this one's "name" is read.
            other = ev.hasName && !launchesGpuWork(m_name);
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
                if (is(key, "pid") && !other) {
                    if (m_scan.peek() == JsonScanner::Kind::Number) {
                        ev.pid = toId(m_scan.number());
                        continue;
                    }
                }
                break;
            case 4:
                if (is(key, "name") && !other) {
                    m_name.assign(stringField(key));
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
        m_name.clear();
    fold(ev);
}

uint32_t EventReader::kernelIndex(Cat cat) {
    auto it = m_fold.kernelIndex.find(m_name);
    if (it != m_fold.kernelIndex.end())
        return it->second;
    const uint32_t idx = uint32_t(m_fold.kernels.size());
    EventFold::Kernel k;
    k.rawName = m_name;
    k.cat = cat;
    m_fold.kernels.push_back(std::move(k));
    m_fold.kernelIndex.emplace(m_name, idx);
    return idx;
}

uint32_t EventReader::threadIndex(const Event& ev) {
    const EventFold::Thread key{ev.pid, ev.tid};
    if (m_lastThread < m_fold.threads.size() && m_fold.threads[m_lastThread] == key)
        return m_lastThread;
    auto [it, fresh] = m_fold.threadIndex.emplace(key, uint32_t(m_fold.threads.size()));
    if (fresh)
        m_fold.threads.push_back(key);
    m_lastThread = it->second;
    return it->second;
}

EventFold::Comms EventReader::commsOf(const Event& ev) {
    EventFold::Comms c;
    c.group = ev.group;
    c.seq = ev.seq >= 0 && ev.seq <= (int64_t(1) << 58) ? ev.seq : kNoId;
    if (ev.elements != kNoId) {
        const int64_t bytes = collectiveBytes(ev.elements, ev.dtype);
        c.bytes = bytes >= 0 ? bytes : kNoId;
    }
    return c;
}

void EventReader::fold(const Event& ev) {
    ++m_fold.events;
    const bool complete = ev.complete && ev.hasTs && ev.hasDur;
    if (complete) {
        m_fold.spanBegin = std::min(m_fold.spanBegin, ev.ts);
        m_fold.spanEnd = std::max(m_fold.spanEnd, ev.ts + ev.dur);
    }
    switch (ev.cat) {
        case Cat::Kernel:
        case Cat::Memcpy:
        case Cat::Memset: {
            if (!complete)
                return;  // flows and instants on GPU rows carry no GPU time
            const uint32_t idx = kernelIndex(ev.cat);
            EventFold::Kernel& k = m_fold.kernels[idx];
            const int64_t stream = ev.stream != kNoId ? ev.stream : ev.tid;
            if (stream != kNoId &&
                !std::binary_search(k.streams.begin(), k.streams.end(), int(stream))) {
                k.streams.insert(std::upper_bound(k.streams.begin(), k.streams.end(), int(stream)),
                                 int(stream));
            }
            if (k.shapeAt < 0 && (ev.hasGrid || ev.hasBlock)) {
                k.shapeAt = int64_t(m_fold.activities.size());
                auto fmt = [](const int(&v)[3]) {
                    return std::to_string(v[0]) + "," + std::to_string(v[1]) + "," +
                           std::to_string(v[2]);
                };
                if (ev.hasGrid)
                    k.grid = fmt(ev.grid);
                if (ev.hasBlock)
                    k.block = fmt(ev.block);
            }
            if (m_fold.firstDevice == kNoId)
                m_fold.firstDevice = ev.device;
            // The launch shape, mixed (64-bit FNV-1a over the six numbers): two launches of one
            // kernel with different shapes are different calls to its twin finder.
            // A copy's or memset's size is its shape (a 120 MiB cache flush and an operator's
            // 4 KiB zeroing are both "Memset (Device)"). 32-bit FNV-1a over the numbers.
            auto mix = [](uint32_t h, int64_t v) {
                for (int b = 0; b < 8; ++b) {
                    h ^= uint32_t(uint64_t(v) >> (8 * b)) & 0xffu;
                    h *= 16777619u;
                }
                return h;
            };
            uint32_t launchShape = 0;
            if (ev.hasGrid || ev.hasBlock || ev.bytes != kNoId) {
                launchShape = 2166136261u;
                for (const int64_t v :
                     {int64_t(ev.grid[0]), int64_t(ev.grid[1]), int64_t(ev.grid[2]),
                      int64_t(ev.block[0]), int64_t(ev.block[1]), int64_t(ev.block[2]), ev.bytes})
                    launchShape = mix(launchShape, v);
            }
            const uint32_t lane = mix(mix(2166136261u, ev.device), stream);
            if (m_collectives && ev.cat == Cat::Kernel && !collectiveOp(m_name).empty()) {
                m_fold.collectiveCalls.push_back(
                    {uint32_t(m_fold.activities.size()), stream, commsOf(ev)});
            }
            m_fold.activities.push_back(
                {idx, lane, ev.ts, ev.dur, ev.externalId, ev.correlation, launchShape});
            return;
        }
        case Cat::Runtime:
            if (ev.correlation == kNoId || !launchesGpuWork(m_name))
                return;
            if (isGraphLaunch(m_name))
                m_fold.graphLaunches.push_back(ev.correlation);
            if (ev.hasTs) {
                m_fold.runtimeCalls.push_back(
                    {ev.correlation, ev.externalId, ev.ts, threadIndex(ev), 0});
            }
            return;
        case Cat::CpuOp: {
            // An operator encloses the launches made on its thread while it ran; one without an
            // interval can still be named by an activity's External id.
            if (ev.externalId == kNoId && !complete)
                return;
            if (m_collectives && ev.externalId != kNoId && m_name == "record_param_comms")
                m_fold.commsRecords.push_back({ev.externalId, commsOf(ev)});
            const uint32_t op = intern(m_name, m_fold.opIndex, m_fold.ops);
            const uint32_t sig = ev.signature.empty() ? EventFold::kNoSignature
                                                      : intern(ev.signature, m_fold.signatureIndex,
                                                               m_fold.signatures);
            float dur = -1;
            if (complete) {
                dur = float(ev.dur);
                if (double(dur) < ev.dur)
                    dur = std::nextafter(dur, std::numeric_limits<float>::infinity());
            }
            m_fold.cpuOps.push_back(
                {ev.externalId, complete ? ev.ts : 0, dur, op, sig, threadIndex(ev)});
            return;
        }
        case Cat::Other:
            return;
    }
}

}  // namespace reach::kineto
