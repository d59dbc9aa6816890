#pragma once

#include <QString>

namespace reach {

// The folder a file or folder chooser opens in (issue 40: several opened in the working
// directory every time): the last one the user chose for the same purpose ("project", "import",
// "export", "rules", "benchmark", "integration"), else the last one chosen for any purpose,
// else the home folder. Kept in QSettings as "<purpose>/dir".
QString chooserFolder(const QString& purpose);

// Remembers where a choice was made: a file's folder, or a folder itself.
void rememberChoice(const QString& purpose, const QString& chosen);

}  // namespace reach
