#pragma once

#include <set>
#include <string>
#include <vector>

namespace reach {

// Which files Re-verify is about to compile and run for the first time (issue 14). A record file
// from a stranger names the candidate that Reach then runs with the user's rights: even inside the
// record's folder, the GUI shows the user each new source before its first run and asks. A source
// is known by its bytes (SHA-256), so an edited file is asked about again and a copy elsewhere is
// not. The GUI keeps the approved hashes in its settings; the CLI asks nothing (the user named the
// files or the project on the command line).
class RunConsent {
public:
    RunConsent() = default;
    explicit RunConsent(std::set<std::string> approvedHashes)
        : m_approved(std::move(approvedHashes)) {}

    // The files among `files` whose bytes were never approved, each once, in the order given. A
    // file that cannot be read is listed too (its run will fail on its own, but it is not known).
    std::vector<std::string> unapproved(const std::vector<std::string>& files) const;

    // Remembers the current bytes of these files as approved.
    void approve(const std::vector<std::string>& files);

    const std::set<std::string>& approvedHashes() const { return m_approved; }

private:
    std::set<std::string> m_approved;
};

}  // namespace reach
