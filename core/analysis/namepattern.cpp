#include "core/analysis/namepattern.h"

namespace reach {

NamePattern::NamePattern(const std::string& pattern) {
    m_status = regcomp(&m_re, pattern.c_str(), REG_EXTENDED | REG_ICASE | REG_NOSUB);
    if (m_status != 0) {
        char buf[256];
        regerror(m_status, &m_re, buf, sizeof buf);
        m_error = buf;
    }
}

NamePattern::~NamePattern() {
    if (m_status == 0)
        regfree(&m_re);
}

bool NamePattern::matches(const char* text) const {
    return ok() && regexec(&m_re, text, 0, nullptr, 0) == 0;
}

}  // namespace reach
