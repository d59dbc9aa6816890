// The compile cache is private (issue 14, defect 8): a folder of the user's own, never the
// world-writable /tmp/reach-cache, since a .so found there by its predictable name would be loaded.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "core/base/cachedir.h"
#include "core/base/inputerror.h"

namespace reach_test_cachedir_test {  // unity builds: this file's names stay its own

using namespace reach;
namespace fs = std::filesystem;

namespace {

// Sets or unsets one environment variable for the scope of the test.
class EnvVar {
public:
    EnvVar(const char* name, const char* value) : m_name(name) {
        if (const char* old = std::getenv(name))
            m_old = old;
        if (value)
            setenv(name, value, 1);
        else
            unsetenv(name);
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

fs::path scratch(const std::string& name) {
    const fs::path p =
        fs::temp_directory_path() / ("reach-cachedir-" + std::to_string(getpid()) + "-" + name);
    fs::remove_all(p);
    return p;
}

}  // namespace

TEST(CacheDir, ANewCacheIsCreatedPrivate) {
    const fs::path root = scratch("new");
    EnvVar cache("REACH_CACHE_DIR", root.c_str());
    const std::string dir = defaultCacheDir("candidates");
    EXPECT_EQ(dir, (root / "candidates").string());
    for (const fs::path& p : {root, root / "candidates"}) {
        struct stat st {};
        ASSERT_EQ(::stat(p.c_str(), &st), 0) << p;
        EXPECT_EQ(st.st_mode & 0777, 0700u) << p;
        EXPECT_EQ(st.st_uid, getuid()) << p;
    }
    fs::remove_all(root);
}

TEST(CacheDir, AFolderOthersCanWriteIsRefused) {
    const fs::path root = scratch("shared");
    fs::create_directories(root);
    ::chmod(root.c_str(), 0777);  // as /tmp/reach-cache would be
    EnvVar cache("REACH_CACHE_DIR", root.c_str());
    EXPECT_THROW(defaultCacheDir("candidates"), InputError);
    EXPECT_FALSE(fs::exists(root / "candidates"));  // nothing made inside it
    fs::remove_all(root);
}

TEST(CacheDir, ALinkIsRefused) {
    const fs::path target = scratch("target"), link = scratch("link");
    fs::create_directories(target);
    ::chmod(target.c_str(), 0700);
    fs::create_directory_symlink(target, link);
    EnvVar cache("REACH_CACHE_DIR", link.c_str());
    EXPECT_THROW(defaultCacheDir("candidates"), InputError);
    fs::remove(link);
    fs::remove_all(target);
}

TEST(CacheDir, WithoutHomeItIsNeverTmp) {
    EnvVar cache("REACH_CACHE_DIR", nullptr), xdg("XDG_CACHE_HOME", nullptr), home("HOME", nullptr);
    // HOME unset: the passwd entry's home, or an error; never a shared folder.
    try {
        const std::string root = cacheRoot();
        EXPECT_EQ(root.rfind("/tmp", 0), std::string::npos) << root;
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("REACH_CACHE_DIR"), std::string::npos) << e.what();
    }
}

}  // namespace reach_test_cachedir_test
