#include "core/project/runconsent.h"

#include <stdexcept>

#include "core/base/sha256.h"

namespace reach {

namespace {

std::string hashOf(const std::string& file) {
    try {
        return Sha256::hexOfFile(file);
    } catch (const std::exception&) {
        return {};  // unreadable: never counts as approved
    }
}

}  // namespace

std::vector<std::string> RunConsent::unapproved(const std::vector<std::string>& files) const {
    std::vector<std::string> out;
    std::set<std::string> seen;
    for (const std::string& f : files) {
        if (!seen.insert(f).second)
            continue;
        const std::string h = hashOf(f);
        if (h.empty() || !m_approved.count(h))
            out.push_back(f);
    }
    return out;
}

void RunConsent::approve(const std::vector<std::string>& files) {
    for (const std::string& f : files) {
        const std::string h = hashOf(f);
        if (!h.empty())
            m_approved.insert(h);
    }
}

}  // namespace reach
