// Re-verify shows each new source before its first run (issue 14, defect 8): which files are new
// is decided by their bytes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/project/runconsent.h"

namespace reach_test_runconsent_test {  // unity builds: this file's names stay its own

using namespace reach;
namespace fs = std::filesystem;

namespace {

void write(const fs::path& p, const std::string& text) {
    std::ofstream(p, std::ios::binary) << text;
}

}  // namespace

TEST(RunConsent, ANewSourceIsAskedAboutOnceAndAgainWhenItChanges) {
    const fs::path dir = fs::temp_directory_path() / ("reach-consent-" + std::to_string(getpid()));
    fs::create_directories(dir);
    const std::string a = (dir / "a.cu").string(), b = (dir / "b.cu").string(),
                      copy = (dir / "copy_of_a.cu").string();
    write(a, "__global__ void k() {}\n");
    write(b, "__global__ void other() {}\n");
    write(copy, "__global__ void k() {}\n");

    RunConsent consent;
    EXPECT_EQ(consent.unapproved({a, b, a}), (std::vector<std::string>{a, b}));  // each once
    consent.approve({a});
    EXPECT_EQ(consent.unapproved({a, b}), (std::vector<std::string>{b}));
    EXPECT_TRUE(consent.unapproved({copy}).empty());  // the same bytes elsewhere

    write(a, "__global__ void k() { /* edited */ }\n");  // a changed file is a new source
    EXPECT_EQ(consent.unapproved({a}), (std::vector<std::string>{a}));

    // Approvals survive as a set of hashes (the GUI keeps them in its settings).
    const RunConsent restored(consent.approvedHashes());
    EXPECT_TRUE(restored.unapproved({copy}).empty());
    // A file that cannot be read is never taken as approved.
    EXPECT_EQ(restored.unapproved({(dir / "missing.cu").string()}).size(), 1u);
    fs::remove_all(dir);
}

}  // namespace reach_test_runconsent_test
