// Evidence Reach signs (issue 37): HMAC-SHA256 on Reach's own SHA-256 (RFC 4231's vectors), the
// user's key (created once, private, refused when others can read it) and what a reader makes
// of a document: signed here, or a claim that says why.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/evidence.h"
#include "core/base/hmac.h"
#include "core/base/inputerror.h"
#include "core/base/textescape.h"

namespace reach_test_evidence_test {  // unity builds: this file's names stay its own

using namespace reach;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

class EnvVar {
public:
    EnvVar(const char* name, const std::string& value) : m_name(name) {
        if (const char* old = std::getenv(name))
            m_old = old;
        setenv(name, value.c_str(), 1);
    }
    ~EnvVar() {
        if (m_old)
            setenv(m_name, m_old->c_str(), 1);
        else
            unsetenv(m_name);
    }

private:
    const char* m_name;
    std::optional<std::string> m_old;
};

// A key folder of its own per test: the key is read once per folder and process.
fs::path keyDir(const std::string& name) {
    const fs::path p =
        fs::temp_directory_path() / ("reach-evidence-" + std::to_string(getpid()) + "-" + name);
    fs::remove_all(p);
    return p;
}

std::string bytes(unsigned char c, size_t n) {
    return std::string(n, char(c));
}

json verifyDocument() {
    return {{"schema", "reach.verification"},
            {"verdict", "pass"},
            {"problem_sha256", std::string(64, 'a')},
            {"timing", {{"median_us", 49.47}, {"reps", 100}}},
            {"device", {{"name", "NVIDIA H200"}, {"runtime_version", "13.0"}}}};
}

}  // namespace

// RFC 4231, section 4: test cases 1 to 7 (case 5 compares the first 128 bits, as the RFC does).
TEST(Hmac, Rfc4231Vectors) {
    EXPECT_EQ(hmacSha256Hex(bytes(0x0b, 20), "Hi There"),
              "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
    EXPECT_EQ(hmacSha256Hex("Jefe", "what do ya want for nothing?"),
              "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    EXPECT_EQ(hmacSha256Hex(bytes(0xaa, 20), bytes(0xdd, 50)),
              "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");
    std::string key4;
    for (int i = 1; i <= 25; ++i)
        key4 += char(i);
    EXPECT_EQ(hmacSha256Hex(key4, bytes(0xcd, 50)),
              "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b");
    EXPECT_EQ(hmacSha256Hex(bytes(0x0c, 20), "Test With Truncation").substr(0, 32),
              "a3b6167473100ee06e0c796c2955552b");
    // A key longer than SHA-256's block is hashed first.
    EXPECT_EQ(
        hmacSha256Hex(bytes(0xaa, 131), "Test Using Larger Than Block-Size Key - Hash Key First"),
        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
    EXPECT_EQ(hmacSha256Hex(bytes(0xaa, 131),
                            "This is a test using a larger than block-size key and a larger than "
                            "block-size data. The key needs to be hashed before being used by the "
                            "HMAC algorithm."),
              "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");
}

TEST(Hmac, ConstantTimeComparisonComparesWholeStrings) {
    EXPECT_TRUE(equalInConstantTime("abc", "abc"));
    EXPECT_FALSE(equalInConstantTime("abc", "abd"));
    EXPECT_FALSE(equalInConstantTime("abc", "ab"));
    EXPECT_TRUE(equalInConstantTime("", ""));
}

TEST(Evidence, TheKeyIsMadeOnceWithMode0600InAPrivateFolder) {
    const fs::path dir = keyDir("new");
    EnvVar env("REACH_KEY_DIR", dir.string());
    const EvidenceKey key = userEvidenceKey();
    EXPECT_EQ(key.bytes.size(), 32u);
    EXPECT_EQ(key.id.size(), 16u);
    struct stat st {};
    ASSERT_EQ(::stat(evidenceKeyPath().c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    ASSERT_EQ(::stat(dir.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    EXPECT_EQ(userEvidenceKey().bytes, key.bytes);
    fs::remove_all(dir);
}

TEST(Evidence, ASignedDocumentIsVerifiedHereAndEveryEditMakesItAClaim) {
    const fs::path dir = keyDir("sign");
    EnvVar env("REACH_KEY_DIR", dir.string());
    json doc = verifyDocument();
    ASSERT_EQ(signEvidence(doc), "");
    ASSERT_TRUE(doc.contains(kSignatureMember));
    EXPECT_EQ(doc[kSignatureMember]["alg"], "hmac-sha256");
    EXPECT_EQ(doc[kSignatureMember]["key_id"], userEvidenceKey().id);
    EXPECT_TRUE(checkEvidence(doc).signedHere);
    // As printed and read back, indented or not, its members in any order.
    EXPECT_TRUE(checkEvidence(json::parse(dumpJson(doc))).signedHere);
    EXPECT_TRUE(checkEvidence(json::parse(doc.dump(4))).signedHere);
    EXPECT_EQ(checkEvidence(doc).label("verified here"), "verified here");

    json edited = doc;
    edited["timing"]["median_us"] = 4.947;  // ten times faster, by hand
    Evidence e = checkEvidence(edited);
    EXPECT_FALSE(e.signedHere);
    EXPECT_NE(e.why.find("edited"), std::string::npos) << e.why;
    EXPECT_EQ(e.label("verified here"), "claimed");

    json added = doc;
    added["note"] = "a member the signer never wrote";
    EXPECT_FALSE(checkEvidence(added).signedHere);

    json unsignedDoc = verifyDocument();
    e = checkEvidence(unsignedDoc);
    EXPECT_FALSE(e.signedHere);
    EXPECT_NE(e.why.find("not signed"), std::string::npos) << e.why;

    json malformed = doc;
    malformed[kSignatureMember]["mac"] = "XYZ";
    EXPECT_NE(checkEvidence(malformed).why.find("not {alg"), std::string::npos);
    malformed[kSignatureMember] = "hmac";
    EXPECT_FALSE(checkEvidence(malformed).signedHere);
    EXPECT_FALSE(checkEvidence(json::array()).signedHere);
    fs::remove_all(dir);
}

TEST(Evidence, AnotherUsersKeyIsAClaimNamingTheKey) {
    const fs::path mine = keyDir("mine"), theirs = keyDir("theirs");
    json doc = verifyDocument();
    std::string theirId;
    {
        EnvVar env("REACH_KEY_DIR", theirs.string());
        ASSERT_EQ(signEvidence(doc), "");
        theirId = userEvidenceKey().id;
        EXPECT_TRUE(checkEvidence(doc).signedHere);
    }
    EnvVar env("REACH_KEY_DIR", mine.string());
    const Evidence e = checkEvidence(doc);
    EXPECT_FALSE(e.signedHere);
    EXPECT_EQ(e.keyId, theirId);
    EXPECT_NE(e.why.find("another key"), std::string::npos) << e.why;
    // A forger who copies the key id still needs the key.
    doc[kSignatureMember]["key_id"] = userEvidenceKey().id;
    EXPECT_NE(checkEvidence(doc).why.find("edited"), std::string::npos);
    fs::remove_all(mine);
    fs::remove_all(theirs);
}

// A string that is not UTF-8 (a compiler's log, a kernel name) is printed as \xNN text: the
// signature covers what a reader of the printed file sees.
TEST(Evidence, TextThatIsNotUtf8IsSignedAsPrinted) {
    const fs::path dir = keyDir("utf8");
    EnvVar env("REACH_KEY_DIR", dir.string());
    json doc = verifyDocument();
    doc["log"] = std::string("bad \xff byte and a C1 \xc2\x9b control");
    ASSERT_EQ(signEvidence(doc), "");
    const json printed = json::parse(dumpJson(doc));
    EXPECT_TRUE(checkEvidence(printed).signedHere);
    fs::remove_all(dir);
}

TEST(Evidence, AKeyOthersCanReadOrALinkIsRefusedNamingTheFile) {
    {
        const fs::path dir = keyDir("readable");
        fs::create_directories(dir);
        fs::permissions(dir, fs::perms::owner_all, fs::perm_options::replace);
        std::ofstream(dir / "evidence.key", std::ios::binary) << std::string(32, 'k');
        fs::permissions(dir / "evidence.key", fs::perms(0644), fs::perm_options::replace);
        EnvVar env("REACH_KEY_DIR", dir.string());
        try {
            userEvidenceKey();
            FAIL() << "a key others can read was used";
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find("evidence.key"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("chmod 600"), std::string::npos) << e.what();
        }
        // Signing is then impossible, and says why; nothing claims to be signed.
        json doc = verifyDocument();
        EXPECT_NE(signEvidence(doc), "");
        EXPECT_FALSE(doc.contains(kSignatureMember));
        EXPECT_FALSE(checkEvidence(doc).signedHere);
        fs::remove_all(dir);
    }
    {
        const fs::path dir = keyDir("link");
        fs::create_directories(dir);
        fs::permissions(dir, fs::perms::owner_all, fs::perm_options::replace);
        std::ofstream(dir / "elsewhere", std::ios::binary) << std::string(32, 'k');
        fs::permissions(dir / "elsewhere", fs::perms(0600), fs::perm_options::replace);
        fs::create_symlink(dir / "elsewhere", dir / "evidence.key");
        EnvVar env("REACH_KEY_DIR", dir.string());
        EXPECT_THROW(userEvidenceKey(), InputError);
        fs::remove_all(dir);
    }
    {
        // A folder others can write: someone could put their own key there.
        const fs::path dir = keyDir("open");
        fs::create_directories(dir);
        fs::permissions(dir, fs::perms(0777), fs::perm_options::replace);
        EnvVar env("REACH_KEY_DIR", dir.string());
        EXPECT_THROW(userEvidenceKey(), InputError);
        fs::remove_all(dir);
    }
}

TEST(Evidence, TheKeyIsNeverInsideTheCompileCache) {
    const fs::path cache = keyDir("cache");
    EnvVar c("REACH_CACHE_DIR", cache.string());
    EnvVar k("REACH_KEY_DIR", (cache / "keys").string());
    try {
        userEvidenceKey();
        FAIL() << "a key inside the compile cache was used";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("compile cache"), std::string::npos) << e.what();
    }
    fs::remove_all(cache);
}

// Processes that create the key at the same moment end with one key (link() never replaces).
TEST(Evidence, KeysCreatedAtOnceAreOneKey) {
    const fs::path dir = keyDir("race");
    std::vector<pid_t> children;
    for (int i = 0; i < 4; ++i) {
        const pid_t pid = fork();
        if (pid == 0) {  // a process each: the key is read once per process
            setenv("REACH_KEY_DIR", dir.c_str(), 1);
            try {
                std::ofstream(dir.string() + ".id" + std::to_string(i)) << userEvidenceKey().id;
            } catch (...) {
            }
            _exit(0);
        }
        children.push_back(pid);
    }
    for (pid_t pid : children) {
        int status = 0;
        waitpid(pid, &status, 0);
    }
    std::vector<std::string> ids;
    for (int i = 0; i < 4; ++i) {
        const std::string file = dir.string() + ".id" + std::to_string(i);
        std::string id;
        std::ifstream in(file);
        std::getline(in, id);
        ids.push_back(id);
        fs::remove(file);
    }
    for (const std::string& id : ids) {
        EXPECT_EQ(id.size(), 16u);
        EXPECT_EQ(id, ids[0]);
    }
    fs::remove_all(dir);
}

}  // namespace reach_test_evidence_test
