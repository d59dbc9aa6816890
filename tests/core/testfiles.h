#pragma once

// Files the hardening tests make at run time (large or hostile inputs are generated, never
// committed): a private temporary folder, plain and gzip writers, and JSON built to a shape.

#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace reach::test {

class TempFolder {
public:
    TempFolder() {
        static std::atomic<int> counter{0};
        m_root = (std::filesystem::temp_directory_path() /
                  ("reach_core_" + std::to_string(::getpid()) + "_" + std::to_string(counter++)))
                     .string();
        std::filesystem::remove_all(m_root);
        std::filesystem::create_directories(m_root);
    }
    ~TempFolder() {
        std::error_code ec;
        std::filesystem::remove_all(m_root, ec);
    }
    TempFolder(const TempFolder&) = delete;
    TempFolder& operator=(const TempFolder&) = delete;
    std::string path(const std::string& name) const { return m_root + "/" + name; }
    const std::string& root() const { return m_root; }

private:
    std::string m_root;
};

inline std::string writeText(const std::string& path, std::string_view bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out)
        throw std::runtime_error("cannot write " + path);
    return path;
}

// Writes prefix + `count` copies of `fill` + suffix as gzip without holding the middle part: a
// few megabytes of gzip that inflate to gigabytes.
inline std::string writeGzip(const std::string& path, std::string_view prefix, char fill = 0,
                             uint64_t count = 0, std::string_view suffix = {}) {
    gzFile f = gzopen(path.c_str(), "wb6");
    if (!f)
        throw std::runtime_error("cannot write " + path);
    gzwrite(f, prefix.data(), unsigned(prefix.size()));
    const std::string block(1 << 20, fill);
    for (uint64_t left = count; left > 0;) {
        const uint64_t n = std::min<uint64_t>(left, block.size());
        gzwrite(f, block.data(), unsigned(n));
        left -= n;
    }
    gzwrite(f, suffix.data(), unsigned(suffix.size()));
    gzclose(f);
    return path;
}

// `depth` nested lists: [[[...]]].
inline std::string nestedLists(size_t depth) {
    return std::string(depth, '[') + std::string(depth, ']');
}

// A minimal PyTorch-profiler trace: one GPU kernel with this name (JSON string body, escapes
// allowed) and these ts/dur tokens, then whatever `extra` adds as top-level members.
inline std::string kinetoTrace(std::string_view nameBody, std::string_view ts = "100.5",
                               std::string_view dur = "2.25", std::string_view extra = {}) {
    std::string s = R"({"traceEvents":[{"ph":"X","cat":"kernel","name":")";
    s += nameBody;
    s += R"(","pid":0,"tid":7,"ts":)";
    s += ts;
    s += R"(,"dur":)";
    s += dur;
    s += R"(,"args":{"stream":7,"device":0}}])";
    if (!extra.empty()) {
        s += ",";
        s += extra;
    }
    s += "}";
    return s;
}

}  // namespace reach::test
