#include "core/distributed/runanalysis.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "core/analysis/statistics.h"
#include "core/base/inputerror.h"

namespace reach {

namespace {

using Key = std::pair<std::string, std::string>;  // (group, op)

// The rank order: by rank; a rank named twice, or a run mixing ranks with and without one, is
// the user's input to fix.
void orderRanks(std::vector<RankTrace>& ranks) {
    const bool all =
        std::all_of(ranks.begin(), ranks.end(), [](const RankTrace& r) { return r.rank >= 0; });
    if (!all) {
        for (const RankTrace& r : ranks)
            if (r.rank < 0)
                throw InputError(r.path, "distributedInfo",
                                 "a rank (distributedInfo's \"rank\", or \"rank-N\" in the file "
                                 "name): every file of a run must say which rank it is");
    }
    std::stable_sort(ranks.begin(), ranks.end(),
                     [](const RankTrace& a, const RankTrace& b) { return a.rank < b.rank; });
    for (size_t i = 1; i < ranks.size(); ++i)
        if (ranks[i].rank == ranks[i - 1].rank)
            throw InputError(ranks[i].path, "distributedInfo",
                             "a rank of its own: rank " + std::to_string(ranks[i].rank) +
                                 " is also " + ranks[i - 1].path);
}

// Each rank's collectives by group, in the order they are matched in.
std::vector<std::map<Key, std::vector<size_t>>> groupsOf(const std::vector<RankTrace>& ranks) {
    std::vector<std::map<Key, std::vector<size_t>>> out(ranks.size());
    for (size_t r = 0; r < ranks.size(); ++r) {
        const auto& cs = ranks[r].collectives;
        for (size_t i = 0; i < cs.size(); ++i)
            out[r][{cs[i].group, cs[i].op}].push_back(i);
    }
    return out;
}

// The operations whose every rank sends the same bytes (all-to-all and send/receive need not).
bool equalBytes(const std::string& op) {
    return op == "AllReduce" || op == "Broadcast" || op == "Reduce" || op == "AllGather" ||
           op == "ReduceScatter";
}

using Groups = std::vector<std::map<Key, std::vector<size_t>>>;

// Every rank has the group and every one of its collectives a sequence number.
bool sequencedEverywhere(const std::vector<RankTrace>& ranks, const Groups& groups,
                         const Key& key) {
    for (size_t r = 0; r < ranks.size(); ++r) {
        const auto it = groups[r].find(key);
        if (it == groups[r].end())
            return false;
        for (size_t i : it->second)
            if (ranks[r].collectives[i].seq < 0)
                return false;
    }
    return true;
}

// By sequence number: one on every rank is matched; one some rank lacks (a sampled trace), or
// one a rank records twice, is listed with why and the rest still match.
void matchBySequence(RunAnalysis& run, const Groups& groups, const Key& key,
                     std::vector<std::pair<Key, std::vector<size_t>>>& tuples) {
    const size_t n = run.ranks.size();
    std::map<int64_t, std::vector<std::vector<size_t>>> bySeq;  // seq -> per rank, indices
    for (size_t r = 0; r < n; ++r)
        for (size_t i : groups[r].at(key)) {
            auto& slot = bySeq[run.ranks[r].collectives[i].seq];
            slot.resize(n);
            slot[r].push_back(i);
        }
    for (const auto& [seq, perRank] : bySeq) {
        std::string missing;
        bool twice = false;
        for (size_t r = 0; r < n; ++r) {
            if (perRank[r].empty())
                missing += (missing.empty() ? "" : ", ") + std::to_string(run.ranks[r].rank);
            twice = twice || perRank[r].size() > 1;
        }
        if (missing.empty() && !twice) {
            std::vector<size_t> tuple;
            for (size_t r = 0; r < n; ++r)
                tuple.push_back(perRank[r][0]);
            tuples.push_back({key, std::move(tuple)});
            continue;
        }
        const std::string why =
            twice ? "sequence number " + std::to_string(seq) + " recorded twice on one rank"
                  : "sequence number " + std::to_string(seq) + " is not in the trace of rank " +
                        missing + " (a sampled or cut trace)";
        for (size_t r = 0; r < n; ++r)
            if (!perRank[r].empty())
                run.unmatched.push_back({r, key.first, key.second, long(perRank[r].size()), why});
    }
}

void unmatchAll(RunAnalysis& run, const std::vector<std::map<Key, std::vector<size_t>>>& groups,
                const Key& key, const std::string& why) {
    for (size_t r = 0; r < run.ranks.size(); ++r) {
        const auto it = groups[r].find(key);
        const long n = it == groups[r].end() ? 0 : long(it->second.size());
        if (n > 0)
            run.unmatched.push_back({r, key.first, key.second, n, why});
    }
}

std::string countsText(const RunAnalysis& run,
                       const std::vector<std::map<Key, std::vector<size_t>>>& groups,
                       const Key& key) {
    std::string text;
    for (size_t r = 0; r < run.ranks.size(); ++r) {
        const auto it = groups[r].find(key);
        text += (r ? ", " : "") + std::to_string(it == groups[r].end() ? 0 : it->second.size()) +
                " on rank " + std::to_string(run.ranks[r].rank);
    }
    return text;
}

// The matched collectives as index tuples (one index per rank), before clocks are aligned.
std::vector<std::pair<Key, std::vector<size_t>>> match(
    RunAnalysis& run, const std::vector<std::map<Key, std::vector<size_t>>>& groups) {
    std::set<Key> keys;
    for (const auto& g : groups)
        for (const auto& [key, _] : g)
            keys.insert(key);
    std::vector<std::pair<Key, std::vector<size_t>>> tuples;
    for (const Key& key : keys) {
        if (sequencedEverywhere(run.ranks, groups, key)) {
            matchBySequence(run, groups, key, tuples);
            continue;
        }
        bool everywhere = true;
        size_t count = 0;
        for (size_t r = 0; r < run.ranks.size(); ++r) {
            const auto it = groups[r].find(key);
            const size_t n = it == groups[r].end() ? 0 : it->second.size();
            everywhere = everywhere && n > 0;
            if (r == 0)
                count = n;
            else if (n != count)
                everywhere = false;
        }
        if (!everywhere) {
            unmatchAll(run, groups, key,
                       "the ranks hold different numbers of these collectives (" +
                           countsText(run, groups, key) +
                           "): a sampled or cut trace, or ranks of different runs");
            continue;
        }
        std::vector<std::vector<size_t>> lists;
        for (size_t r = 0; r < run.ranks.size(); ++r)
            lists.push_back(groups[r].at(key));
        for (size_t k = 0; k < count; ++k) {
            std::vector<size_t> tuple;
            long long bytes = -1;
            bool bytesDiffer = false;
            for (size_t r = 0; r < lists.size(); ++r) {
                tuple.push_back(lists[r][k]);
                const long long b = run.ranks[r].collectives[lists[r][k]].bytes;
                if (b >= 0 && bytes >= 0 && b != bytes)
                    bytesDiffer = true;
                if (b >= 0 && bytes < 0)
                    bytes = b;
            }
            if (bytesDiffer && equalBytes(key.second)) {
                for (size_t r = 0; r < lists.size(); ++r)
                    run.unmatched.push_back(
                        {r, key.first, key.second, 1,
                         "collective " + std::to_string(k) +
                             " of its group records different bytes on different ranks"});
                continue;
            }
            tuples.push_back({key, std::move(tuple)});
        }
    }
    return tuples;
}

void estimateOffsets(RunAnalysis& run,
                     const std::vector<std::pair<Key, std::vector<size_t>>>& tuples) {
    run.offsets.assign(run.ranks.size(), {});
    for (size_t r = 1; r < run.ranks.size(); ++r) {
        std::vector<double> d;
        for (const auto& [key, t] : tuples)
            d.push_back(run.ranks[r].collectives[t[r]].end - run.ranks[0].collectives[t[0]].end);
        ClockOffset& o = run.offsets[r];
        o.samples = int(d.size());
        if (d.empty())
            continue;
        o.offsetUs = median(d);
        std::vector<double> dev;
        for (double x : d)
            dev.push_back(std::fabs(x - o.offsetUs));
        o.uncertaintyUs = std::max(1.0, 2 * 1.4826 * median(dev) / std::sqrt(double(d.size())));
    }
}

}  // namespace

RunAnalysis analyzeRun(std::vector<RankTrace> ranks) {
    RunAnalysis run;
    orderRanks(ranks);
    run.ranks = std::move(ranks);
    const size_t n = run.ranks.size();
    for (const RankTrace& r : run.ranks)
        if (r.worldSize > 0 && size_t(r.worldSize) != n)
            run.warnings.push_back("rank " + std::to_string(r.rank) + " says the run has " +
                                   std::to_string(r.worldSize) + " ranks; " + std::to_string(n) +
                                   " were given: what is measured is " +
                                   "between the given ones only");
    const Groups groups = groupsOf(run.ranks);
    const auto tuples = n > 1 ? match(run, groups) : decltype(match(run, groups)){};
    estimateOffsets(run, tuples);

    run.communication.assign(n, {});
    for (const auto& [key, t] : tuples) {
        MatchedCollective m;
        m.group = key.first;
        m.op = key.second;
        const Collective& first = run.ranks[0].collectives[t[0]];
        m.index = first.seq >= 0 ? long(first.seq) : -1;
        m.bytes = first.bytes;
        double transfer = INFINITY;
        for (size_t r = 0; r < n; ++r) {
            const Collective& c = run.ranks[r].collectives[t[r]];
            m.arrival.push_back(c.begin - run.offsets[r].offsetUs);
            m.leave.push_back(c.end - run.offsets[r].offsetUs);
            transfer = std::min(transfer, c.end - c.begin);
        }
        m.transferUs = transfer;
        m.straggler =
            size_t(std::max_element(m.arrival.begin(), m.arrival.end()) - m.arrival.begin());
        double second = -INFINITY;
        for (size_t r = 0; r < n; ++r)
            if (r != m.straggler)
                second = std::max(second, m.arrival[r]);
        m.skewUs = n > 1 ? std::max(0.0, m.arrival[m.straggler] - second) : 0;
        for (size_t r = 0; r < n; ++r) {
            const Collective& c = run.ranks[r].collectives[t[r]];
            m.waitUs.push_back((c.end - c.begin) - transfer);
            run.communication[r].waitUs += m.waitUs.back();
            run.communication[r].transferUs += transfer;
        }
        // A tie (within the traces' 1 us) has no straggler to count.
        if (m.skewUs >= 1.0) {
            ++run.communication[m.straggler].lastArrivals;
            run.communication[m.straggler].stragglerCostUs += m.skewUs;
        }
        run.matched.push_back(std::move(m));
    }
    // Per group, the matched ones in the first rank's order of arrival; the index says which
    // of its group it is when no sequence number was recorded.
    std::stable_sort(run.matched.begin(), run.matched.end(),
                     [](const MatchedCollective& a, const MatchedCollective& b) {
                         return a.arrival[0] < b.arrival[0];
                     });
    std::map<Key, long> seen;
    for (MatchedCollective& m : run.matched)
        if (m.index < 0)
            m.index = seen[{m.group, m.op}]++;
    for (size_t r = 0; r < n; ++r) {
        RankCommunication& c = run.communication[r];
        for (const Collective& x : run.ranks[r].collectives)
            c.collectiveUs += x.end - x.begin;
        c.computeUs = run.ranks[r].computeUs;
        c.overlapUs =
            spanLength(spanIntersection(run.ranks[r].collectiveSpans, run.ranks[r].computeSpans));
    }
    // The rank the others wait for: it waits least itself.
    for (size_t r = 1; r < n; ++r)
        if (run.communication[r].waitUs < run.communication[run.critical].waitUs)
            run.critical = r;
    return run;
}

}  // namespace reach
