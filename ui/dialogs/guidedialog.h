#pragma once

#include <QDialog>

class QTextBrowser;

namespace reach {

// Help > Guide (F1): the short guide bundled as a resource (resources/guide/guide.html), in a
// non-modal window beside the workbench, so it can stay open while the user works. Its sections
// are named after the views' keys, so F1 in a view opens that view's section.
class GuideDialog : public QDialog {
    Q_OBJECT
public:
    explicit GuideDialog(QWidget* parent = nullptr);

    // Scrolls to the section named `anchor` (a view's key: breakdown, speedups, projection,
    // roofline; or rules, verifier, no-gpu, mapping); the top for an unknown one.
    void showSection(const QString& anchor);
    QString section() const { return m_section; }
    QTextBrowser* browser() const { return m_browser; }

private:
    QTextBrowser* m_browser;
    QString m_section;
};

}  // namespace reach
