#include "core/verify/kbcache.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/base/jsonparse.h"
#include "core/base/sha256.h"
#include "core/base/textescape.h"

namespace reach {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kKinds[] = {"kernelbench", "baselines", "census"};

bool allowedKind(const std::string& k, KbResultCache::Source source) {
    if (source == KbResultCache::Source::KernelBenchReport)
        return k == "kernelbench";
    return k == "baselines" || k == "census";
}

std::string hashOf(const std::string& path) {
    try {
        return Sha256::hexOfFile(path);
    } catch (const std::exception&) {
        return {};
    }
}

}  // namespace

KbResultCache::KbResultCache(std::string root, const std::string& problemFile,
                             const std::string& candidateFile)
    : m_root(std::move(root)) {
    const std::string p = hashOf(problemFile), c = hashOf(candidateFile);
    if (p.empty() || c.empty()) {
        m_root.clear();  // an unreadable file: the job says so itself
        return;
    }
    m_problemScope = p;
    m_pairScope = Sha256::hex(p + c);
}

std::string KbResultCache::scopeDir(const std::string& kind) const {
    const std::string& scope = kind == "baselines" ? m_problemScope : m_pairScope;
    return m_root + "/results/" + kind + "/" + scope;
}

json KbResultCache::entries() const {
    json out = json::object();
    if (!enabled())
        return {{"entries", out}};
    for (const char* kind : kKinds) {
        json table = json::object();
        std::error_code ec;
        int n = 0;
        for (fs::directory_iterator it(scopeDir(kind), ec), end;
             !ec && it != end && n < kMaxEntries; it.increment(ec)) {
            const fs::path& f = it->path();
            if (f.extension() != ".json" || !Sha256::isHexDigest(f.stem().string()))
                continue;
            std::error_code sec;
            if (!it->is_regular_file(sec) || it->file_size(sec) > kMaxEntryBytes || sec)
                continue;
            std::ifstream in(f, std::ios::binary);
            std::stringstream ss;
            ss << in.rdbuf();
            std::optional<json> e = tryParseJson(ss.str());
            if (!e || !e->is_object() || e->value("key", "") != f.stem().string())
                continue;
            table[f.stem().string()] = std::move(*e);
            ++n;
        }
        out[kind] = std::move(table);
    }
    return {{"entries", out}};
}

int KbResultCache::store(const json& cacheStore, Source source) const {
    if (!enabled() || !cacheStore.is_array())
        return 0;
    int stored = 0;
    for (const json& e : cacheStore) {
        if (!e.is_object())
            continue;
        const std::string kind = e.value("kind", "");
        const std::string key = e.value("key", "");
        if (!allowedKind(kind, source) || !Sha256::isHexDigest(key) || !e.contains("value") ||
            !e.value("measured_at", json()).is_string())
            continue;
        const json entry = {
            {"key", key}, {"kind", kind}, {"measured_at", e["measured_at"]}, {"value", e["value"]}};
        const std::string text = dumpJson(entry);
        if (text.size() > kMaxEntryBytes)
            continue;
        const std::string dir = scopeDir(kind);
        std::error_code ec;
        fs::create_directories(dir, ec);
        if (ec)
            continue;
        // Written whole to a temporary file, then renamed: two verifiers never see half an entry.
        const std::string path = dir + "/" + key + ".json";
        const std::string tmp = path + "." + std::to_string(::getpid()) + ".tmp";
        {
            std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
            out << text;
            if (!out)
                continue;
        }
        fs::rename(tmp, path, ec);
        if (ec)
            fs::remove(tmp, ec);
        else
            ++stored;
    }
    return stored;
}

}  // namespace reach
