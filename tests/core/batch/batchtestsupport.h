#pragma once
// Helpers of the batch tests: a scratch folder with candidate files for the fake verifier
// (tests/core/batch/fakebatchverifier.cpp) and its event log.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/batch/batchjobs.h"

namespace reach::test {

struct FakeEvent {
    std::string event, candidate, gpu;
    int64_t t0 = 0, t1 = 0;
};

class BatchScratch {
public:
    explicit BatchScratch(const std::string& name) {
        m_dir = std::filesystem::temp_directory_path() /
                ("reach_batch_" + name + "_" + std::to_string(getpid()));
        std::filesystem::remove_all(m_dir);
        std::filesystem::create_directories(m_dir / "state");
        std::ofstream(m_dir / "problem.json") << "{\"op\": \"softmax\"}\n";
    }
    ~BatchScratch() { std::filesystem::remove_all(m_dir); }

    std::string dir() const { return m_dir.string(); }
    std::string log() const { return (m_dir / "fake.log").string(); }
    std::string problem() const { return (m_dir / "problem.json").string(); }

    // Writes candidate NAME with TEXT (the fake's settings) and returns its path.
    std::string candidate(const std::string& name, const std::string& text) const {
        const std::string p = (m_dir / name).string();
        std::ofstream(p) << text << "\n";
        return p;
    }

    // n C++ jobs c0.cu .. c{n-1}.cu, each with its own text (distinct hashes).
    std::vector<BatchJob> jobs(int n, const std::string& text = "sleep_ms=20") const {
        std::vector<BatchJob> out;
        for (int i = 0; i < n; ++i) {
            BatchJob j;
            j.index = i;
            j.label = "c" + std::to_string(i);
            j.request.problemFile = problem();
            j.request.candidateFile =
                candidate("c" + std::to_string(i) + ".cu", text + " id=" + std::to_string(i));
            j.request.timeoutSeconds = 30;
            hashJobFiles(j);
            out.push_back(j);
        }
        return out;
    }

    std::vector<std::string> env() const {
        return {"FAKE_VERIFY_LOG=" + log(), "FAKE_VERIFY_STATE=" + (m_dir / "state").string()};
    }

    std::vector<FakeEvent> events(const std::string& kind = "") const {
        std::vector<FakeEvent> out;
        std::ifstream in(log());
        for (std::string line; std::getline(in, line);) {
            std::istringstream s(line);
            FakeEvent e;
            std::string gpu, t0, t1;
            s >> e.event >> e.candidate >> gpu >> t0 >> t1;
            e.gpu = gpu.substr(4);
            e.t0 = std::stoll(t0.substr(3));
            e.t1 = std::stoll(t1.substr(3));
            if (kind.empty() || e.event == kind)
                out.push_back(e);
        }
        return out;
    }

    std::map<std::string, int> countBy(const std::string& kind) const {
        std::map<std::string, int> n;
        for (const FakeEvent& e : events(kind))
            ++n[e.candidate];
        return n;
    }

private:
    std::filesystem::path m_dir;
};

}  // namespace reach::test
