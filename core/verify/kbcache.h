#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace reach {

// The stored results of KernelBench-format jobs (KernelBench's reproduced verdict, the
// baselines' times, the kernel census; resources/python/reach_kb/resultcache.py says what each
// depends on). Only reach-verify reads and writes them: the Python processes get the entries a
// job may use in a file (--cache-in) and list what to store in their document (`cache_store`),
// so a candidate, in the runner or in KernelBench's reproduction, never writes the cache, and a
// sandboxed job does not see it at all.
//
// Each entry is filed under the bytes of the job that made it: <root>/results/<kind>/<scope>/
// <key>.json, where the scope is the SHA-256 of the problem file (baselines) or of the problem
// and candidate files (kernelbench, census). Whatever a worker asks to store, it can only
// reach the entries of its own files: a hostile problem or candidate cannot plant an entry that
// another problem's verify would read.
class KbResultCache {
public:
    // root: the cache folder (--cache-dir); empty disables the cache.
    KbResultCache(std::string root, const std::string& problemFile,
                  const std::string& candidateFile);

    bool enabled() const { return !m_root.empty(); }
    // {"entries": {kind: {key: entry}}} of this job's scopes (at most kMaxEntries per scope,
    // kMaxEntryBytes each; unreadable or malformed entries are left out: a cache never fails a
    // job).
    nlohmann::json entries() const;
    // Which worker a `cache_store` list comes from, and so which kinds it may file. The judge
    // (the `reach` worker) never loads the candidate: its document may store the baselines and
    // the kernel census. KernelBench's reproduction loads the candidate in its own process (as
    // KernelBench does), so its document is only a report about KernelBench: it may store that
    // report (kind `kernelbench`, under this problem AND candidate), never a baseline, which
    // every later verify of the problem would read (issue 36: a planted baseline read 33x).
    enum class Source { Judge, KernelBenchReport };
    // Files the `cache_store` list of a worker's document (each {kind, key, value,
    // measured_at}); entries of a kind the source may not store, of an unknown kind, with a key
    // that is not 64 hex digits or over the size limit are dropped. Returns how many were stored.
    int store(const nlohmann::json& cacheStore, Source source) const;

    static constexpr int kMaxEntries = 64;
    static constexpr size_t kMaxEntryBytes = size_t(4) << 20;

private:
    std::string scopeDir(const std::string& kind) const;

    std::string m_root;
    std::string m_problemScope;
    std::string m_pairScope;
};

}  // namespace reach
