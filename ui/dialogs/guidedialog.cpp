#include "ui/dialogs/guidedialog.h"

#include <QDialogButtonBox>
#include <QFile>
#include <QGuiApplication>
#include <QPushButton>
#include <QScreen>
#include <QScrollBar>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "ui/verify/gpustate.h"

namespace reach {

namespace {

// The guide's text; the no-GPU sentence is the status bar's own (noGpuAdvice), filled in here so
// the guide cannot drift from what the window says.
QString guideHtml() {
    QFile file(QStringLiteral(":/reach/guide/guide.html"));
    if (!file.open(QIODevice::ReadOnly))
        return QObject::tr(
            "<p>The guide is missing from this build (:/reach/guide/guide.html).</p>");
    QString html = QString::fromUtf8(file.readAll());
    html.replace(QStringLiteral("@NO_GPU_ADVICE@"),
                 noGpuAdvice(QStringLiteral("no CUDA-capable device is detected")).toHtmlEscaped());
    return html;
}

}  // namespace

GuideDialog::GuideDialog(QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Reach Guide"));
    setModal(false);
    m_browser = new QTextBrowser(this);
    m_browser->setObjectName(QStringLiteral("guideBrowser"));
    m_browser->setOpenExternalLinks(true);
    m_browser->setHtml(guideHtml());
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_browser, 1);
    layout->addWidget(buttons);
    // Readable lines (about 80 characters) and no taller than a 1280x720 screen's work area.
    QSize size(640, 600);
    if (const QScreen* screen = QGuiApplication::primaryScreen())
        size = size.boundedTo(screen->availableGeometry().size() * 0.9);
    resize(size);
}

void GuideDialog::showSection(const QString& anchor) {
    m_section = anchor;
    m_browser->verticalScrollBar()->setValue(0);
    if (!anchor.isEmpty())
        m_browser->scrollToAnchor(anchor);
}

}  // namespace reach
