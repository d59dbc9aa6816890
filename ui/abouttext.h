#pragma once

#include <QString>

namespace reach {

// Help > About: what Reach answers, what it was built with, where it keeps what it writes (the
// open project, the compile cache, the key it signs evidence with) and the GPU it found. One
// place, so the dialog and its test read the same text.
QString aboutText(const QString& projectPath, const QString& gpuState);

}  // namespace reach
