#include "core/analysis/profilediff.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <tuple>
#include <utility>

#include "core/analysis/kernelname.h"
#include "core/analysis/namepattern.h"
#include "core/base/inputerror.h"

namespace reach {

namespace {

double shareOf(double us, double total) {
    return total > 0 ? us / total : 0;
}

DiffSide sideOf(const Breakdown& b) {
    DiffSide s;
    s.workload = b.workload;
    s.source = b.source;
    s.sourceHash = b.sourceHash;
    s.device = b.device;
    s.gpuTimeUs = b.gpuTimeUs;
    s.busyTimeUs = b.busyTimeUs;
    s.spanUs = b.spanUs;
    s.classifiedShare = b.classifiedShare;
    s.categoryUs = b.categoryUs;
    s.rulesName = b.rulesName;
    s.rulesHash = b.rulesHash;
    return s;
}

// The kernels of one side under one match key.
struct KeyTime {
    double us = 0;
    int64_t calls = 0;
    const ClassifiedKernel* largest = nullptr;  // breakdown kernels come largest first
    std::vector<std::string> names;
};

using MatchKey = std::pair<std::string, std::string>;  // display name, dominant operator

std::map<MatchKey, KeyTime> byKey(const Breakdown& b) {
    std::map<MatchKey, KeyTime> out;
    for (const ClassifiedKernel& k : b.kernels) {
        KeyTime& t = out[{kernelDisplayName(k.stats.name), k.stats.dominantOperator()}];
        t.us += k.stats.totalUs;
        t.calls += k.stats.calls;
        if (!t.largest)
            t.largest = &k;
        t.names.push_back(k.stats.name);
    }
    return out;
}

// Largest change first; ties (and equal changes) by key so the order is stable.
void sortByChange(std::vector<DiffRow>& rows) {
    std::stable_sort(rows.begin(), rows.end(), [](const DiffRow& x, const DiffRow& y) {
        const double dx = std::abs(x.deltaUs()), dy = std::abs(y.deltaUs());
        if (dx != dy)
            return dx > dy;
        return std::tie(x.key, x.op) < std::tie(y.key, y.op);
    });
}

void sortBySize(std::vector<DiffRow>& rows) {
    std::stable_sort(rows.begin(), rows.end(), [](const DiffRow& x, const DiffRow& y) {
        const double sx = x.aUs + x.bUs, sy = y.aUs + y.bUs;
        if (sx != sy)
            return sx > sy;
        return std::tie(x.key, x.op) < std::tie(y.key, y.op);
    });
}

}  // namespace

double DiffSide::busyShare() const {
    return spanUs > 0 ? busyTimeUs / spanUs : 0;
}

double DiffSide::share(Category c) const {
    return shareOf(categoryUs[static_cast<size_t>(c)], gpuTimeUs);
}

double ProfileDiff::kernelDeltaSumUs() const {
    double sum = 0;
    for (const auto* rows : {&kernels, &onlyA, &onlyB}) {
        for (const DiffRow& r : *rows)
            sum += r.deltaUs();
    }
    return sum;
}

ProfileDiff diffBreakdowns(const Breakdown& a, const Breakdown& b) {
    ProfileDiff d;
    d.a = sideOf(a);
    d.b = sideOf(b);

    for (Category c : kCategories) {
        DiffRow r;
        r.key = std::string(categoryKey(c));
        r.category = c;
        r.aUs = a.categoryUs[static_cast<size_t>(c)];
        r.bUs = b.categoryUs[static_cast<size_t>(c)];
        r.aShare = shareOf(r.aUs, a.gpuTimeUs);
        r.bShare = shareOf(r.bUs, b.gpuTimeUs);
        d.categories.push_back(std::move(r));
    }

    std::set<std::string> families;
    for (const auto& [f, t] : a.familyUs)
        families.insert(f);
    for (const auto& [f, t] : b.familyUs)
        families.insert(f);
    for (const std::string& f : families) {
        DiffRow r;
        r.key = f;
        r.family = f;
        if (auto it = a.familyUs.find(f); it != a.familyUs.end())
            r.aUs = it->second;
        if (auto it = b.familyUs.find(f); it != b.familyUs.end())
            r.bUs = it->second;
        r.aShare = shareOf(r.aUs, a.gpuTimeUs);
        r.bShare = shareOf(r.bUs, b.gpuTimeUs);
        d.families.push_back(std::move(r));
    }
    sortByChange(d.families);

    const std::map<MatchKey, KeyTime> ka = byKey(a), kb = byKey(b);
    std::set<MatchKey> keys;
    for (const auto& [k, t] : ka)
        keys.insert(k);
    for (const auto& [k, t] : kb)
        keys.insert(k);
    for (const MatchKey& key : keys) {
        DiffRow r;
        r.key = key.first;
        r.op = key.second;
        const auto ia = ka.find(key), ib = kb.find(key);
        const KeyTime* ta = ia == ka.end() ? nullptr : &ia->second;
        const KeyTime* tb = ib == kb.end() ? nullptr : &ib->second;
        if (ta) {
            r.aUs = ta->us;
            r.aCalls = ta->calls;
            r.aNames = ta->names;
        }
        if (tb) {
            r.bUs = tb->us;
            r.bCalls = tb->calls;
            r.bNames = tb->names;
        }
        r.aShare = shareOf(r.aUs, a.gpuTimeUs);
        r.bShare = shareOf(r.bUs, b.gpuTimeUs);
        const ClassifiedKernel* label = ta && (!tb || ta->us >= tb->us) ? ta->largest : tb->largest;
        r.category = label->category;
        r.family = label->family;
        (ta && tb ? d.kernels : ta ? d.onlyA : d.onlyB).push_back(std::move(r));
    }
    sortByChange(d.kernels);
    sortBySize(d.onlyA);
    sortBySize(d.onlyB);
    return d;
}

double ProjectionCheck::aUs() const {
    double s = 0;
    for (const CandidateCheck& c : candidates)
        s += c.aUs;
    return s;
}

double ProjectionCheck::bUs() const {
    double s = 0;
    for (const CandidateCheck& c : candidates)
        s += c.bUs;
    return s;
}

double ProjectionCheck::projectedSavingUs() const {
    double s = 0;
    for (const CandidateCheck& c : candidates)
        s += c.projectedSavingUs();
    return s;
}

double ProjectionCheck::measuredSavingUs() const {
    return aUs() - bUs();
}

double ProjectionCheck::projectedWallShare() const {
    return aClock.wallShare(shareOf(projectedSavingUs(), aGpuTimeUs));
}

double ProjectionCheck::measuredWallShare() const {
    return aClock.spanUs > 0 && bClock.spanUs > 0 ? (aClock.spanUs - bClock.spanUs) / aClock.spanUs
                                                  : 0;
}

double ProjectionCheck::projectedSpeedup() const {
    const double saved = shareOf(projectedSavingUs(), aGpuTimeUs);
    return saved < 1 ? 1.0 / (1.0 - saved) : 0;
}

double ProjectionCheck::measuredSpeedup() const {
    return bGpuTimeUs > 0 ? aGpuTimeUs / bGpuTimeUs : 0;
}

ProjectionCheck checkCandidates(const ProfileDiff& diff, const std::vector<Candidate>& candidates) {
    ProjectionCheck out;
    out.aGpuTimeUs = diff.a.gpuTimeUs;
    out.bGpuTimeUs = diff.b.gpuTimeUs;
    out.aClock = {diff.a.gpuTimeUs, diff.a.busyTimeUs, diff.a.spanUs};
    out.bClock = {diff.b.gpuTimeUs, diff.b.busyTimeUs, diff.b.spanUs};
    std::vector<std::unique_ptr<NamePattern>> patterns;
    for (const Candidate& c : candidates) {
        auto p = std::make_unique<NamePattern>(c.pattern);
        if (!p->ok())
            throw InputError("candidate", c.pattern, "a regular expression (" + p->error() + ")");
        if (!(c.speedup > 0) || !std::isfinite(c.speedup))
            throw InputError("candidate", c.pattern, "a positive, finite speedup");
        patterns.push_back(std::move(p));
        out.candidates.push_back({c, {}, 0, 0});
    }
    // A's rows, largest first, so each candidate lists its kernels by time.
    std::vector<const DiffRow*> rows;
    for (const DiffRow& r : diff.kernels)
        rows.push_back(&r);
    for (const DiffRow& r : diff.onlyA)
        rows.push_back(&r);
    std::stable_sort(rows.begin(), rows.end(),
                     [](const DiffRow* x, const DiffRow* y) { return x->aUs > y->aUs; });
    for (const DiffRow* r : rows) {
        for (size_t i = 0; i < patterns.size(); ++i) {
            const bool hit =
                patterns[i]->matches(r->key) ||
                std::any_of(r->aNames.begin(), r->aNames.end(),
                            [&](const std::string& n) { return patterns[i]->matches(n); });
            if (!hit)
                continue;
            CandidateCheck& c = out.candidates[i];
            c.keys.push_back(r->op.empty() ? r->key : r->key + " [" + r->op + "]");
            c.aUs += r->aUs;
            c.bUs += r->bUs;
            break;
        }
    }
    return out;
}

}  // namespace reach
