#include "ui/abouttext.h"

#include <qcustomplot.h>
#include <nlohmann/json.hpp>

#include <QCoreApplication>

#include "core/base/cachedir.h"
#include "core/base/evidence.h"
#include "core/base/inputerror.h"
#include "core/base/resourcepaths.h"
#include "core/store/sqlitedb.h"
#include "ui/qtstrings.h"

namespace reach {

namespace {

// A folder Reach uses, or why it has none (an unsafe or missing folder is said, not hidden).
template <typename Find>
QString folderOrWhy(Find find) {
    try {
        const std::string dir = find();
        return dir.empty() ? QCoreApplication::translate("About", "none")
                           : toQString(dir).toHtmlEscaped();
    } catch (const InputError& e) {
        return toQString(e.what()).toHtmlEscaped();
    }
}

}  // namespace

QString aboutText(const QString& projectPath, const QString& gpuState) {
    auto tr = [](const char* s) { return QCoreApplication::translate("About", s); };
    const QString json = QStringLiteral("%1.%2.%3")
                             .arg(NLOHMANN_JSON_VERSION_MAJOR)
                             .arg(NLOHMANN_JSON_VERSION_MINOR)
                             .arg(NLOHMANN_JSON_VERSION_PATCH);
    QString text =
        tr("<b>Reach %1</b>"
           "<p>How much of a real GPU workload can new kernels reach, and what would "
           "the verified kernels buy end to end? Reach splits a workload's GPU time into "
           "library-optimized, addressable, overhead and unclassified, verifies and "
           "times candidate kernels on this GPU, and projects what they are worth "
           "(Amdahl's law on the addressable share).</p>")
            .arg(QStringLiteral(REACH_VERSION));
    text += tr("<p><b>This machine</b><br>GPU: %1<br>Project: %2<br>Compile cache: %3<br>"
               "Evidence key (signs what this machine verified): %4<br>Resources: %5</p>")
                .arg(gpuState.toHtmlEscaped(),
                     projectPath.isEmpty() ? tr("the bundled sample (not saved)")
                                           : projectPath.toHtmlEscaped(),
                     folderOrWhy([] { return cacheRootPath(); }),
                     folderOrWhy([] { return evidenceKeyDir(); }),
                     folderOrWhy([] { return findResourceDir(); }));
    text += tr("<p><b>Built with</b> Qt %1 (running %2), QCustomPlot %3, SQLite %4, "
               "nlohmann/json %5.</p>")
                .arg(QStringLiteral(QT_VERSION_STR), QString::fromLatin1(qVersion()),
                     QStringLiteral(QCUSTOMPLOT_VERSION_STR), toQString(sqliteVersion()), json);
    text +=
        tr("<p>Help &gt; Guide (F1) explains each view; the documentation is in the docs "
           "folder of Reach's sources. Command line: <tt>reach-cli</tt>, "
           "<tt>reach-verify</tt>.</p>");
    return text;
}

}  // namespace reach
