#include "core/trace/kinetoreader.h"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "core/base/inputerror.h"
#include "core/base/orderedworkers.h"
#include "core/base/parallel.h"
#include "core/trace/bytesource.h"
#include "core/trace/jsonscanner.h"
#include "core/trace/kinetoevents.h"
#include "core/trace/kinetomerge.h"

namespace reach {

namespace {

using kineto::EventFold;
using kineto::EventReader;
using kineto::kNoId;
using kineto::toId;

// Serial reading hands its events to the merge in folds of this many (a fold holds its events'
// records until then).
constexpr uint64_t kFoldEvents = 1 << 16;

// A piece that grows past this is one huge element (a metadata event with megabytes of text):
// it is read on the reading thread, streamed as it would be unsplit.
constexpr size_t kMaxPieceBytes = 16 << 20;

// Below four CPUs the parsing threads would compete with the two that read and split the file.
// REACH_PARSE_THREADS=N sets the number for a whole process (a user sharing a machine, a test).
int parseThreads(const KinetoOptions& o) {
    if (o.threads >= 0)
        return o.threads;
    if (const char* env = std::getenv("REACH_PARSE_THREADS"); env && *env) {
        char* end = nullptr;
        const long n = std::strtol(env, &end, 10);
        if (*end != '\0' || n < 0 || n > 64) {
            throw InputError("REACH_PARSE_THREADS", "",
                             "expected a whole number of parsing threads from 0 to 64, got \"" +
                                 std::string(env).substr(0, 40) + "\"");
        }
        return int(n);
    }
    const int cpus = cpusAvailable();
    return cpus >= 4 ? std::min(cpus - 2, 8) : 0;
}

class KinetoParser {
public:
    KinetoParser(ByteSource& source, const ProgressFn& progress, std::stop_token stop,
                 const KinetoOptions& options)
        : m_source(source),
          m_scan(source),
          m_progress(progress),
          m_stop(stop),
          m_options(options),
          m_threads(parseThreads(options)) {}

    Workload run();

private:
    void parseTopLevel();
    void parseEvents();
    void parseEventsSplit();
    // One element of "traceEvents" read here; false at its end.
    bool readOneEvent();
    void flushFold();
    void checkStopAndReport();
    void parseDeviceProperties();
    void parseDistributedInfo();
    EventFold parsePiece(JsonScanner::Piece& piece) const;

    ByteSource& m_source;
    JsonScanner m_scan;
    const ProgressFn& m_progress;
    std::stop_token m_stop;
    const KinetoOptions m_options;
    const int m_threads;

    bool m_sawEvents = false;
    std::vector<std::pair<int64_t, std::string>> m_devices;  // deviceProperties: id, name
    RankFacts m_rank;  // distributedInfo's part (KinetoOptions::rankFacts)
    EventFold m_fold;  // events read on this thread, not yet merged
    EventReader m_reader{m_scan, m_fold, m_options.rankFacts};
    kineto::KinetoMerge m_merge;
};

void KinetoParser::checkStopAndReport() {
    if (m_stop.stop_requested())
        throw Cancelled{};
    if (m_progress && m_source.fileSize() > 0)
        m_progress(double(m_source.fileBytesRead()) / double(m_source.fileSize()));
}

void KinetoParser::flushFold() {
    if (m_fold.events == 0)
        return;
    m_merge.add(std::move(m_fold));
    m_fold.clear();
}

bool KinetoParser::readOneEvent() {
    if (!m_scan.nextElement())
        return false;
    m_reader.readEvent();
    if ((m_fold.events & 0xFFF) == 0) {
        checkStopAndReport();
        if (m_fold.events >= kFoldEvents)
            flushFold();
    }
    return true;
}

void KinetoParser::parseEvents() {
    m_sawEvents = true;
    m_scan.beginArray();
    if (m_threads > 0)
        parseEventsSplit();
    else
        while (readOneEvent()) {
        }
    flushFold();
}

EventFold KinetoParser::parsePiece(JsonScanner::Piece& piece) const {
    JsonScanner scan(m_source.path(), std::move(piece));
    EventFold fold;
    EventReader reader(scan, fold, m_options.rankFacts);
    while (scan.nextElement()) {
        if (scan.atCut())
            break;  // the next element is the next piece's
        reader.readEvent();
        if ((fold.events & 0xFFF) == 0 && m_stop.stop_requested())
            throw Cancelled{};
    }
    return fold;
}

// The list cut into pieces that the parsing threads read while this one reads on; their folds
// are merged in file order, so the result and the first error are those of a serial reading.
void KinetoParser::parseEventsSplit() {
    OrderedWorkers<JsonScanner::Piece, EventFold> workers(
        unsigned(m_threads), [this](JsonScanner::Piece& p) { return parsePiece(p); });
    const size_t inFlight = 2 * size_t(m_threads);
    auto drain = [&] {
        while (workers.pending() > 0)
            m_merge.add(workers.takeOldest());
    };
    for (;;) {
        const JsonScanner::Split end = m_scan.splitList(
            m_options.pieceBytes, std::max(kMaxPieceBytes, 2 * m_options.pieceBytes),
            [&](JsonScanner::Piece&& piece) {
                checkStopAndReport();
                while (workers.pending() >= inFlight)
                    m_merge.add(workers.takeOldest());
                workers.submit(std::move(piece));
            });
        drain();
        if (end == JsonScanner::Split::Closed)
            return;
        if (end == JsonScanner::Split::Ended) {
            // The last piece's scanner has named what is wrong; should it not have, this does.
            while (readOneEvent()) {
            }
            return;
        }
        // Oversize: the next element is read here, streamed; then splitting goes on after it.
        if (!readOneEvent())
            return;
        flushFold();
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

// Who the rank is, as PyTorch's profiler writes it for a distributed run; values out of range
// are left out (the file name may still say the rank: core/distributed).
void KinetoParser::parseDistributedInfo() {
    if (m_scan.peek() != JsonScanner::Kind::Object) {
        m_scan.skipValue();
        return;
    }
    m_scan.beginObject();
    std::string_view key;
    while (m_scan.nextKey(key)) {
        const JsonScanner::Kind k = m_scan.peek();
        if ((key == "rank" || key == "world_size") && k == JsonScanner::Kind::Number) {
            const int64_t v = toId(m_scan.number());
            if (key == "rank")
                m_rank.rank = (v >= 0 && v < (int64_t(1) << 30)) ? int(v) : -1;
            else
                m_rank.worldSize = (v > 0 && v < (int64_t(1) << 30)) ? int(v) : 0;
        } else if (key == "backend" && k == JsonScanner::Kind::String) {
            m_rank.backend = std::string(m_scan.string().substr(0, 64));
        } else {
            m_scan.skipValue();
        }
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
            } else if (key == "distributedInfo" && m_options.rankFacts) {
                parseDistributedInfo();
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

Workload KinetoParser::run() {
    parseTopLevel();
    // Drain to the end so the file hash covers every byte (the stream may hold trailing members).
    while (!m_source.next().empty()) {
    }
    if (m_progress)
        m_progress(1.0);
    std::optional<RankFacts> rank;
    if (m_options.rankFacts)
        rank = std::move(m_rank);
    return m_merge.finish(std::move(m_devices), m_source.sha256(), std::move(rank));
}

}  // namespace

Workload readKineto(ByteSource& source, const ProgressFn& progress, std::stop_token stop,
                    const KinetoOptions& options) {
    KinetoParser parser(source, progress, stop, options);
    return parser.run();
}

}  // namespace reach
