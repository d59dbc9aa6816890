#pragma once

#include <QString>
#include <string>
#include <string_view>

namespace reach {

// core speaks UTF-8 std::string; widgets speak QString. The conversions live here only.
inline QString toQString(std::string_view s) {
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}
inline std::string toStd(const QString& s) {
    return s.toStdString();
}

}  // namespace reach
