#include "core/base/evidence.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/base/cachedir.h"
#include "core/base/hmac.h"
#include "core/base/inputerror.h"
#include "core/base/sha256.h"
#include "core/base/textescape.h"

namespace reach {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr size_t kKeyBytes = 32;
constexpr const char* kKeyFile = "evidence.key";

std::string sysError() {
    return std::strerror(errno);
}

// Lexically, after making both absolute: the folders need not exist yet.
bool lexicallyInside(const fs::path& file, const fs::path& dir) {
    std::error_code ec;
    const fs::path f = fs::weakly_canonical(fs::absolute(file), ec).lexically_normal();
    const fs::path d = fs::weakly_canonical(fs::absolute(dir), ec).lexically_normal();
    auto fi = f.begin();
    for (auto di = d.begin(); di != d.end(); ++di, ++fi) {
        if (di->empty())
            continue;
        if (fi == f.end() || *fi != *di)
            return false;
    }
    return true;
}

// The key's bytes from an open descriptor, after checking what it is: a key others can read is
// a key others can sign with.
std::string readKey(int fd, const std::string& path) {
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        throw InputError(path, "evidence key", "a regular file (not a link, a folder or a device)");
    if (st.st_uid != ::getuid())
        throw InputError(
            path, "evidence key",
            "a file owned by you (it belongs to uid " + std::to_string(st.st_uid) + ")");
    if (st.st_mode & (S_IRWXG | S_IRWXO))
        throw InputError(path, "evidence key",
                         "a file only you can read (chmod 600 it; anyone who could read it can "
                         "sign results as you: delete it to make a new key)");
    if (st.st_size != off_t(kKeyBytes))
        throw InputError(path, "evidence key",
                         std::to_string(kKeyBytes) + " bytes (it holds " +
                             std::to_string(st.st_size) + "; delete it to make a new key)");
    std::string bytes(kKeyBytes, '\0');
    size_t got = 0;
    while (got < kKeyBytes) {
        const ssize_t n = ::read(fd, bytes.data() + got, kKeyBytes - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            throw InputError(path, "evidence key", "a readable file (" + sysError() + ")");
        got += size_t(n);
    }
    return bytes;
}

std::string randomBytes(size_t n, const std::string& path) {
    std::string out(n, '\0');
    size_t got = 0;
    while (got < n) {
        const ssize_t r = ::getrandom(out.data() + got, n - got, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            throw InputError(path, "evidence key",
                             "random bytes from the kernel (" + sysError() + ")");
        got += size_t(r);
    }
    return out;
}

// A new key, written beside its place and linked into it: link() never replaces a file, so two
// processes creating the key at once end with one key, and no reader sees a half-written one.
void createKey(const std::string& dir, const std::string& path) {
    const std::string tmp = dir + "/." + kKeyFile + "." + std::to_string(::getpid()) + "." +
                            Sha256::hex(randomBytes(8, path)).substr(0, 8);
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        throw InputError(path, "evidence key", "a file Reach can create (" + sysError() + ")");
    ::fchmod(fd, 0600);  // whatever the umask
    const std::string key = randomBytes(kKeyBytes, path);
    bool ok = ::write(fd, key.data(), key.size()) == ssize_t(key.size()) && ::fsync(fd) == 0;
    ok = (::close(fd) == 0) && ok;
    if (ok && ::link(tmp.c_str(), path.c_str()) != 0 && errno != EEXIST)
        ok = false;
    const std::string why = sysError();
    ::unlink(tmp.c_str());
    if (!ok)
        throw InputError(path, "evidence key", "a file Reach can write (" + why + ")");
}

EvidenceKey loadKey() {
    const std::string dir = evidenceKeyDir();
    const std::string path = dir + "/" + kKeyFile;
    // A sandboxed C++ job may write the compile cache: a key inside it would be the candidate's.
    if (const std::string cache = cacheRootPath(); !cache.empty() && lexicallyInside(dir, cache))
        throw InputError(dir, "evidence key folder",
                         "a folder outside the compile cache " + cache +
                             " (a sandboxed job may read and write the cache; set REACH_KEY_DIR)");
    requirePrivateDir(dir, "evidence key folder", "REACH_KEY_DIR");
    int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) {
        createKey(dir, path);
        fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    }
    if (fd < 0)
        throw InputError(path, "evidence key",
                         errno == ELOOP ? std::string("a regular file, not a link")
                                        : "a file Reach can read (" + sysError() + ")");
    EvidenceKey key;
    try {
        key.bytes = readKey(fd, path);
    } catch (...) {
        ::close(fd);
        throw;
    }
    ::close(fd);
    key.id = Sha256::hex(key.bytes).substr(0, 16);
    return key;
}

bool isLowerHex(const std::string& s, size_t size) {
    if (s.size() != size)
        return false;
    for (char c : s)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return false;
    return true;
}

}  // namespace

std::string evidenceKeyDir() {
    if (const char* x = std::getenv("REACH_KEY_DIR"); x && *x)
        return x;
    if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x)
        return std::string(x) + "/reach";
    const std::string home = homeDirectory();
    if (home.empty())
        throw InputError("the evidence key", "folder",
                         "a home directory or REACH_KEY_DIR (Reach keeps the key it signs its "
                         "measurements with in a folder of yours)");
    return home + "/.config/reach";
}

std::string evidenceKeyPath() {
    return evidenceKeyDir() + "/" + kKeyFile;
}

EvidenceKey userEvidenceKey() {
    // Read once per folder: a reader checks thousands of documents with one key.
    static std::mutex mutex;
    static std::map<std::string, EvidenceKey> keys;
    const std::string dir = evidenceKeyDir();
    std::lock_guard lock(mutex);
    if (auto it = keys.find(dir); it != keys.end())
        return it->second;
    EvidenceKey key = loadKey();
    keys[dir] = key;
    return key;
}

std::string canonicalEvidenceText(const json& document) {
    if (!document.is_object())
        throw std::invalid_argument("evidence is a JSON object");
    json unsignedDoc = document;
    unsignedDoc.erase(kSignatureMember);
    return json::parse(dumpJson(unsignedDoc, -1)).dump();
}

std::string signEvidence(json& document) {
    if (!document.is_object())
        return "not a JSON object";
    document.erase(kSignatureMember);
    EvidenceKey key;
    try {
        key = userEvidenceKey();
    } catch (const InputError& e) {
        return e.what();
    }
    const std::string mac = hmacSha256Hex(key.bytes, canonicalEvidenceText(document));
    document[kSignatureMember] = {{"alg", kSignatureAlgorithm}, {"key_id", key.id}, {"mac", mac}};
    return "";
}

Evidence checkEvidence(const json& document) {
    Evidence e;
    if (!document.is_object()) {
        e.why = "not a JSON object";
        return e;
    }
    const auto it = document.find(kSignatureMember);
    if (it == document.end() || it->is_null()) {
        e.why = "not signed by Reach";
        return e;
    }
    const json& sig = *it;
    const json alg = sig.is_object() ? sig.value("alg", json()) : json();
    const json keyId = sig.is_object() ? sig.value("key_id", json()) : json();
    const json mac = sig.is_object() ? sig.value("mac", json()) : json();
    if (alg != kSignatureAlgorithm || !keyId.is_string() || !mac.is_string() ||
        !isLowerHex(keyId.get<std::string>(), 16) || !isLowerHex(mac.get<std::string>(), 64)) {
        e.why = std::string("a ") + kSignatureMember +
                " that is not {alg: hmac-sha256, key_id: 16 hex, mac: 64 hex}";
        return e;
    }
    e.keyId = keyId.get<std::string>();
    EvidenceKey key;
    try {
        key = userEvidenceKey();
    } catch (const InputError& err) {
        e.why = std::string("no key to check it with (") + err.what() + ")";
        return e;
    }
    if (e.keyId != key.id) {
        e.why = "signed with another key (" + e.keyId + "; yours is " + key.id +
                "): another user's or another machine's";
        return e;
    }
    const std::string expected = hmacSha256Hex(key.bytes, canonicalEvidenceText(document));
    if (!equalInConstantTime(expected, mac.get<std::string>())) {
        e.why = "edited after Reach signed it (its signature does not match its content)";
        return e;
    }
    e.signedHere = true;
    return e;
}

json evidenceJson(const Evidence& evidence, const std::string& here) {
    return {{"evidence", evidence.label(here)},
            {"evidence_why", evidence.signedHere ? json() : json(evidence.why)}};
}

}  // namespace reach
