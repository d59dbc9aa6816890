// No command writes a file it read, by any name (issue 37: `figure breakdown X.json --out X.pdf`
// wrote its provenance over the trace X.json), and a file the user did not name replaces an
// existing one only where Reach wrote it for that output, or with --force.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include <unistd.h>

#include "core/base/inputerror.h"
#include "core/base/outputguard.h"
#include "tests/core/testfiles.h"

using namespace reach;
namespace fs = std::filesystem;

namespace {

class OutputGuardTest : public ::testing::Test {
protected:
    void SetUp() override {
        fs::create_directories(dir / "sub");
        std::ofstream(dir / "trace.json") << "{}";
    }
    std::string p(const std::string& name) const { return (dir / name).string(); }
    reach::test::TempFolder folder;  // removed with the fixture
    fs::path dir = folder.root();
};

std::string refusal(const std::function<void()>& f) {
    try {
        f();
    } catch (const InputError& e) {
        return e.what();
    }
    return {};
}

}  // namespace

TEST_F(OutputGuardTest, AnInputIsNeverAnOutputByAnyName) {
    OutputGuard g;
    g.addInput(p("trace.json"));
    fs::create_hard_link(dir / "trace.json", dir / "link.json");
    fs::create_symlink(dir / "trace.json", dir / "sym.json");
    for (const std::string& out :
         {p("trace.json"), p("sub/../trace.json"), p("link.json"), p("sym.json")}) {
        const std::string e = refusal([&] { g.checkNamed(out); });
        EXPECT_NE(e.find("never writes over its input"), std::string::npos) << out << ": " << e;
        EXPECT_EQ(e.rfind(out, 0), 0u) << e;  // the line names the output
        // --force replaces a stranger's file, never an input.
        EXPECT_NE(refusal([&] { g.checkSidecar(out, true, true); }), "") << out;
    }
    // A relative name of the same file.
    const fs::path cwd = fs::current_path();
    fs::current_path(dir);
    EXPECT_NE(refusal([&] { g.checkNamed("trace.json"); }), "");
    fs::current_path(cwd);
    EXPECT_EQ(refusal([&] { g.checkNamed(p("figure.pdf")); }), "");
}

TEST_F(OutputGuardTest, ASidecarReplacesOnlyWhatReachWroteOrWithForce) {
    OutputGuard g;
    g.addInput(p("trace.json"));
    std::ofstream(dir / "fig.csv") << "mine";
    EXPECT_NE(refusal([&] { g.checkSidecar(p("fig.csv"), false, false); }).find("--force"),
              std::string::npos);
    EXPECT_EQ(refusal([&] { g.checkSidecar(p("fig.csv"), true, false); }), "");
    EXPECT_EQ(refusal([&] { g.checkSidecar(p("fig.csv"), false, true); }), "");
    EXPECT_EQ(refusal([&] { g.checkSidecar(p("new.csv"), false, false); }), "");
    // A dangling link where the sidecar would go is a file there too.
    fs::create_symlink(dir / "nowhere", dir / "fig.json");
    EXPECT_NE(refusal([&] { g.checkSidecar(p("fig.json"), false, false); }), "");
}
