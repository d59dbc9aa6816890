#include "core/distributed/rankscan.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <regex>
#include <string_view>
#include <unordered_map>

#include "core/base/inputerror.h"
#include "core/trace/bytesource.h"
#include "core/trace/jsonscanner.h"

namespace reach {

namespace {

// What a record_param_comms call says of the collective it launches.
struct CommsCall {
    std::string group;
    int64_t bytes = -1;
    int64_t seq = -1;
};

// Bytes of one element of a dtype as record_param_comms names it ("Float", "BFloat16", ...).
int64_t dtypeBytes(std::string_view t) {
    static const std::unordered_map<std::string_view, int64_t> sizes = {
        {"Float", 4},        {"Double", 8},        {"Half", 2},          {"BFloat16", 2},
        {"Long", 8},         {"Int", 4},           {"Short", 2},         {"Char", 1},
        {"Byte", 1},         {"Bool", 1},          {"Float8_e4m3fn", 1}, {"Float8_e5m2", 1},
        {"ComplexFloat", 8}, {"ComplexDouble", 16}};
    const auto it = sizes.find(t);
    return it == sizes.end() ? -1 : it->second;
}

// One event's fields, as far as a rank's scan needs them.
struct Event {
    std::string name, cat;
    double ts = -1, dur = -1;
    int64_t stream = -1, externalId = -1;
    std::string group, dtype;
    int64_t nelems = -1, seq = -1;
};

int64_t integer(JsonScanner& scan) {
    const double v = scan.number();
    return (v >= -9.0e18 && v <= 9.0e18) ? int64_t(v) : -1;
}

void readArgs(JsonScanner& scan, Event& ev) {
    scan.beginObject();
    std::string_view key;
    while (scan.nextKey(key)) {
        const JsonScanner::Kind k = scan.peek();
        if (k == JsonScanner::Kind::Number) {
            if (key == "stream")
                ev.stream = integer(scan);
            else if (key == "External id")
                ev.externalId = integer(scan);
            else if (key == "In msg nelems")
                ev.nelems = integer(scan);
            else if (key == "Seq" || key == "seq")
                ev.seq = integer(scan);
            else
                scan.skipValue();
        } else if (k == JsonScanner::Kind::String) {
            if (key == "Process Group Name")
                ev.group = std::string(scan.string());
            else if (key == "dtype")
                ev.dtype = std::string(scan.string());
            else
                scan.skipValue();
        } else {
            scan.skipValue();
        }
    }
}

Event readEvent(JsonScanner& scan) {
    Event ev;
    if (scan.peek() != JsonScanner::Kind::Object) {
        scan.skipValue();
        return ev;
    }
    scan.beginObject();
    std::string_view key;
    while (scan.nextKey(key)) {
        const JsonScanner::Kind k = scan.peek();
        if (key == "name" && k == JsonScanner::Kind::String)
            ev.name = std::string(scan.string());
        else if (key == "cat" && k == JsonScanner::Kind::String)
            ev.cat = std::string(scan.string());
        else if (key == "ts" && k == JsonScanner::Kind::Number)
            ev.ts = scan.number();
        else if (key == "dur" && k == JsonScanner::Kind::Number)
            ev.dur = scan.number();
        else if (key == "args" && k == JsonScanner::Kind::Object)
            readArgs(scan, ev);
        else
            scan.skipValue();
    }
    return ev;
}

// The collective's metadata as an event's args give it (record_param_comms, or the NCCL kernel
// itself in PyTorch 2.x): process group, bytes (elements x the dtype's size), sequence number.
CommsCall commsOf(const Event& ev) {
    CommsCall call;
    call.group = ev.group.substr(0, 128);
    call.seq = ev.seq >= 0 && ev.seq <= (int64_t(1) << 58) ? ev.seq : -1;
    const int64_t size = dtypeBytes(ev.dtype);
    if (ev.nelems >= 0 && size > 0 && ev.nelems < (int64_t(1) << 58))
        call.bytes = ev.nelems * size;
    return call;
}

// Sorted, disjoint: what the intervals cover.
std::vector<Span> unionOf(std::vector<Span> spans) {
    std::sort(spans.begin(), spans.end());
    std::vector<Span> out;
    for (const Span& s : spans) {
        if (!out.empty() && s.first <= out.back().second)
            out.back().second = std::max(out.back().second, s.second);
        else
            out.push_back(s);
    }
    return out;
}

bool isGpuActivity(const std::string& cat) {
    return cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset" || cat == "Kernel" ||
           cat == "Memcpy" || cat == "Memset";
}

class Scan {
public:
    explicit Scan(const std::string& path) : m_source(path), m_scan(m_source) {
        m_rank.path = path;
    }

    RankTrace run() {
        const JsonScanner::Kind k = m_scan.peek();
        if (k == JsonScanner::Kind::Array) {
            events();
        } else {
            if (k != JsonScanner::Kind::Object)
                m_scan.fail(std::string("expected a JSON object with \"traceEvents\", found ") +
                            JsonScanner::kindName(k));
            m_scan.beginObject();
            std::string_view key;
            while (m_scan.nextKey(key)) {
                if (key == "traceEvents" && m_scan.peek() == JsonScanner::Kind::Array)
                    events();
                else if (key == "distributedInfo" && m_scan.peek() == JsonScanner::Kind::Object)
                    distributedInfo();
                else
                    m_scan.skipValue();
            }
        }
        m_scan.expectEnd();
        if (!m_sawEvents)
            throw InputError(
                m_rank.path, "key \"traceEvents\"",
                "expected a top-level \"traceEvents\" list (a PyTorch profiler trace)");
        return finish();
    }

private:
    void distributedInfo() {
        m_scan.beginObject();
        std::string_view key;
        while (m_scan.nextKey(key)) {
            const JsonScanner::Kind k = m_scan.peek();
            if (key == "rank" && k == JsonScanner::Kind::Number) {
                const int64_t r = integer(m_scan);
                if (r >= 0 && r < (int64_t(1) << 30)) {
                    m_rank.rank = int(r);
                    m_rank.rankFrom = "distributedInfo";
                }
            } else if (key == "world_size" && k == JsonScanner::Kind::Number) {
                const int64_t w = integer(m_scan);
                m_rank.worldSize = (w > 0 && w < (int64_t(1) << 30)) ? int(w) : 0;
            } else if (key == "backend" && k == JsonScanner::Kind::String) {
                m_rank.backend = std::string(m_scan.string()).substr(0, 64);
            } else {
                m_scan.skipValue();
            }
        }
    }

    void events() {
        m_sawEvents = true;
        m_scan.beginArray();
        while (m_scan.nextElement()) {
            Event ev = readEvent(m_scan);
            if (isGpuActivity(ev.cat)) {
                // An instant or a broken event has no interval; timestamps past any clock's
                // (1e17 us: three thousand years) would make the run's differences infinite.
                if (!(ev.ts >= 0 && ev.ts < 1e17) || !(ev.dur >= 0 && ev.dur < 1e12))
                    continue;
                const std::string op = ev.cat == "kernel" || ev.cat == "Kernel"
                                           ? collectiveOp(ev.name)
                                           : std::string();
                (op.empty() ? m_compute : m_communication).push_back({ev.ts, ev.ts + ev.dur});
                m_rank.gpuUs += ev.dur;
                if (!op.empty()) {
                    Collective c;
                    c.op = op;
                    c.kernel = ev.name.substr(0, 512);
                    c.stream = ev.stream >= 0 ? ev.stream : -1;
                    c.begin = ev.ts;
                    c.end = ev.ts + ev.dur;
                    // PyTorch 2.x writes the collective's metadata on its kernel too.
                    const CommsCall own = commsOf(ev);
                    c.group = own.group;
                    c.bytes = own.bytes;
                    c.seq = own.seq;
                    m_launchedBy.push_back(ev.externalId);
                    m_rank.collectives.push_back(std::move(c));
                }
            } else if (ev.name == "record_param_comms" && ev.externalId >= 0) {
                m_comms[ev.externalId] = commsOf(ev);
            }
        }
    }

    RankTrace finish() {
        // What the kernel does not say of itself, its launching record_param_comms may.
        for (size_t i = 0; i < m_rank.collectives.size(); ++i) {
            const auto it = m_comms.find(m_launchedBy[i]);
            if (m_launchedBy[i] < 0 || it == m_comms.end())
                continue;
            Collective& c = m_rank.collectives[i];
            if (c.group.empty())
                c.group = it->second.group;
            if (c.bytes < 0)
                c.bytes = it->second.bytes;
            if (c.seq < 0)
                c.seq = it->second.seq;
        }
        // Begin order (a trace lists events in no promised order); ties by end, stable.
        std::vector<size_t> order(m_rank.collectives.size());
        for (size_t i = 0; i < order.size(); ++i)
            order[i] = i;
        std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
            const Collective& x = m_rank.collectives[a];
            const Collective& y = m_rank.collectives[b];
            return x.begin != y.begin ? x.begin < y.begin : x.end < y.end;
        });
        std::vector<Collective> sorted;
        sorted.reserve(order.size());
        for (size_t i : order)
            sorted.push_back(std::move(m_rank.collectives[i]));
        m_rank.collectives = std::move(sorted);
        m_rank.computeSpans = unionOf(std::move(m_compute));
        m_rank.collectiveSpans = unionOf(std::move(m_communication));
        if (m_rank.rank < 0) {
            m_rank.rank = rankFromFileName(m_rank.path);
            if (m_rank.rank >= 0)
                m_rank.rankFrom = "file name";
        }
        return std::move(m_rank);
    }

    ByteSource m_source;
    JsonScanner m_scan;
    RankTrace m_rank;
    bool m_sawEvents = false;
    std::vector<Span> m_compute, m_communication;  // every activity, until finish()
    std::vector<int64_t> m_launchedBy;             // per collective, its kernel's External id
    std::unordered_map<int64_t, CommsCall> m_comms;
};

}  // namespace

std::string collectiveOp(const std::string& kernelName) {
    std::string_view n = kernelName;
    for (std::string_view prefix :
         {"ncclDevKernel_", "ncclKernel_", "rcclDevKernel_", "rcclKernel_"}) {
        if (n.substr(0, prefix.size()) == prefix) {
            n.remove_prefix(prefix.size());
            size_t end = 0;
            while (end < n.size() && std::isalnum(static_cast<unsigned char>(n[end])))
                ++end;
            return end ? std::string(n.substr(0, end)) : std::string("Collective");
        }
    }
    return {};
}

int rankFromFileName(const std::string& path) {
    static const std::regex pattern(R"((?:^|[^A-Za-z])rank[-_]?(\d{1,7})(?:[^0-9]|$))",
                                    std::regex::icase);
    const std::string name = std::filesystem::path(path).filename().string();
    std::smatch m;
    if (!std::regex_search(name, m, pattern))
        return -1;
    return std::stoi(m[1].str());
}

RankTrace scanRank(const std::string& path) {
    Scan scan(path);
    return scan.run();
}

}  // namespace reach
